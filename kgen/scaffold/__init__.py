"""`kgen init`: a new project that builds and validates clean straight away."""
