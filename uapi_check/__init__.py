"""uapi_check: the driver behind ./uapi-check.

It runs the whole check on kernel trees (install the headers, compile them, build one unit per
language and revision, run abidiff-uapi over a matrix of comparisons) and judges the tool's
findings. One module per step; model.py holds the data that flows between them.
"""
