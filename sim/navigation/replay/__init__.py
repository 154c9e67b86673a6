"""Recording a search and stepping through it both ways; every search run side by side."""
