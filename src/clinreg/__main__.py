"""`python -m clinreg`: the same command line as `clinreg`."""

from clinreg.cli.main import main

if __name__ == "__main__":
    main(prog_name="clinreg")
