"""Valhalla Solo Mode simulator (valhalla-solo.txt, with the Valkyries expansion).

Modules: ``layout`` (state vector and card tables), ``engine`` (the rules),
``policies`` (decisions and registry), ``simulation`` (scenario → runner),
``report`` (the difficulty report).
"""
