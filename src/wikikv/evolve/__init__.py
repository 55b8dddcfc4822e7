"""Schema evolution (WikiKV paper §III-D): access statistics, the cost J, PageSplit and
DimensionMerge, committed under the kb's lease with redirects and an audit entry per operator."""
