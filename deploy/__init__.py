"""Serving DP Lab with more than one process: nginx in front of N replicas (no app code here).

`python -m deploy.replicas --help`; README, "Serving a large lecture".
"""
