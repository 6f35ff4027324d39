import MSALJOSE
