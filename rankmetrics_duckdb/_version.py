"""The package's version, in a module of its own: the report prints it, and the package's __init__ (which
imports the public names' modules on first use) re-exports it, so no module imports the package back."""
__version__ = "0.1.0"
