"""The 2-D map: repeatable, scaled, and defined for any number of papers."""

import numpy as np
import pytest

from workbench.embed import FakeEmbedder, embed_with_cache
from workbench.errors import InputError
from workbench.space.layout import MIN_PAPERS_FOR_UMAP, MapLayout

from conftest import seed_abstracts


@pytest.fixture(scope="module")
def X():
    vectors, _ = embed_with_cache(seed_abstracts(), FakeEmbedder(), None)
    return vectors


def test_same_seed_same_map_and_coordinates_are_scaled(X):
    a = MapLayout(seed=1).fit(X)
    b = MapLayout(seed=1).fit(X.copy())
    assert a.method_ == "umap"
    np.testing.assert_array_equal(a.coords_, b.coords_)
    assert a.coords_.shape == (133, 2)
    assert np.isclose(np.abs(a.coords_).max(), 10.0)


def test_the_map_from_the_topic_models_graph_is_the_map_alone(X):
    from workbench.space.neighbors import NeighbourGraph
    from workbench.topics import TopicModel

    alone = MapLayout(seed=2).fit(X).coords_
    model = TopicModel(seed=2, n_neighbors=30)
    model.cluster(X)  # its UMAP's neighbour graph, handed to the map
    assert isinstance(model.graph_, NeighbourGraph) and model.graph_.fits(X, 15, 2)
    np.testing.assert_array_equal(alone, MapLayout(seed=2).fit(X, graph=model.graph_).coords_)
    wide = TopicModel(seed=2, n_neighbors=50)
    wide.cluster(X)  # a graph built with more neighbours: not the map's, computed again
    assert not wide.graph_.fits(X, 15, 2)
    np.testing.assert_array_equal(alone, MapLayout(seed=2).fit(X, graph=wide.graph_).coords_)
    other = NeighbourGraph.of(X[::-1].copy(), seed=2)  # another set of embeddings: not used
    assert not other.fits(X, 15, 2)
    np.testing.assert_array_equal(alone, MapLayout(seed=2).fit(X, graph=other).coords_)


@pytest.mark.parametrize("n", [1, 2, 3, MIN_PAPERS_FOR_UMAP - 1, MIN_PAPERS_FOR_UMAP])
def test_small_maps(X, n):
    layout = MapLayout().fit(X[:n])
    assert layout.coords_.shape == (n, 2) and np.isfinite(layout.coords_).all()
    assert layout.method_ == ("umap" if n >= MIN_PAPERS_FOR_UMAP else "pca" if n >= 3 else "point")


def test_empty_input_is_a_clear_error():
    with pytest.raises(InputError, match="non-empty"):
        MapLayout().fit(np.zeros((0, 4)))


@pytest.mark.parametrize("m", [9, 640, 5_000])
def test_most_similar_is_argpartitions_set_largest_first(m):
    from workbench.space.layout import most_similar

    sims = np.random.default_rng(m).standard_normal((300, m)).astype(np.float32)
    nearest = most_similar(sims, 5)
    expected = np.argpartition(sims, -5, axis=1)[:, -5:]
    assert all(set(a) == set(b) for a, b in zip(nearest, expected))
    assert (np.diff(np.take_along_axis(sims, nearest, axis=1), axis=1) <= 0).all()  # largest first
