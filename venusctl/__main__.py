"""`python -m venusctl …`: the command line, for when the console script is not on PATH
(task files start built-in environments this way, on the Python venusctl runs on)."""

from venusctl.cli import main

if __name__ == "__main__":
    main()
