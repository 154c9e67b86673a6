"""The searches, one module each, with the C kernels beside the Python references they match."""
