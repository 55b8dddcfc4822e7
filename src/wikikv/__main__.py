"""``python -m wikikv`` runs the command line."""

from wikikv.interfaces.cli import main

if __name__ == "__main__":
    main(prog_name="wikikv")
