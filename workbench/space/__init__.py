"""The map space: the neighbour graph of the embeddings, the 2-D layout (UMAP), the palette
the map, the report and the notebooks share, and the interactive HTML map.

- :mod:`.neighbors` (and :mod:`._nndescent`): the k-nearest-neighbour graph, computed once per
  set of embeddings and shared by the topics' UMAP and the map's;
- :mod:`.layout`: the 2-D coordinates;
- :mod:`.palette`: a colour per topic;
- :mod:`.htmlmap`: ``map.html``, a map that opens in any browser, offline.
"""
