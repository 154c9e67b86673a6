"""Maps from outside and made here: Moving AI files read and written, generated layouts."""
