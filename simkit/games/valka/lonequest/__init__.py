"""VÁLKA Lonequest simulator (valka.txt, "Lonequest Rules").

Modules: ``layout`` (the flat state vector), ``engine`` (the numba rules
kernel), ``policies`` (decision functions and their registry), ``simulation``
(scenario → runner), ``report``.
"""
