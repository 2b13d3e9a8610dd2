"""One function per command, returning its exit code: load, run the pipeline, write or
compare, report once. No click here (kgen.cli wires the command line), so each command
is testable as a plain function; what they share is in `outcome`."""
