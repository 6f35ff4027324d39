@_exported import MSALJOSE
