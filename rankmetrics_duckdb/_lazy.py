"""Modules imported on first use.

`rankmetrics eval` on a query already in the plan cache needs neither sqlglot nor the query builder: importing
them costs about a tenth of its run time on the benchmark. Modules that need them only in some functions hold
a LazyModule instead, and the first attribute read imports the real module.
"""
from __future__ import annotations

import importlib


class LazyModule:
    """Stands for the module `name`; imported when one of its attributes is first read."""

    def __init__(self, name: str):
        self.__dict__["_name"] = name
        self.__dict__["_module"] = None

    def __getattr__(self, attr):
        module = self.__dict__["_module"]
        if module is None:
            module = importlib.import_module(self.__dict__["_name"])
            self.__dict__["_module"] = module
        return getattr(module, attr)

    def __repr__(self):
        return f"<lazy module {self.__dict__['_name']}>"
