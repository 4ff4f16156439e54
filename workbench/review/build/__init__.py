"""Building a review: read -> embed (cached) -> topics -> map, written as a new generation of
the review's files (:mod:`._build`), on Dask for corpora one machine cannot hold (:mod:`._dask`),
reusing what an earlier build made from the same inputs (:mod:`._reuse`), with the map and the
topic words computed beside the topics in a second process (:mod:`._map_beside`,
:mod:`._words_beside`)."""
