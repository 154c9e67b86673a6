"""Rules of the road a crowd keeps beside avoidance: which side to pass, when to go round."""
