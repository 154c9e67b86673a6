"""`sim bench`: our planner against its peers on the Moving AI maps, and the crowd."""
