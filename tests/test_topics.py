"""The topic model: scikit-learn shape, repeatable, several topics on the seeds, small corpora."""

import numpy as np
import pytest

from workbench.embed import FakeEmbedder, TfidfEmbedder, WordVectors, embed_with_cache
from workbench.errors import InputError
from workbench.topics import MIN_PAPERS_FOR_BERTOPIC, TopicModel, readable_label

from conftest import seed_abstracts


@pytest.fixture(scope="module")
def seeds():
    texts = seed_abstracts()
    fake = FakeEmbedder()
    X, _ = embed_with_cache(texts, fake, None)
    return texts, X, WordVectors(fake)


def test_init_only_stores_parameters_and_fit_returns_self(seeds):
    texts, X, words = seeds
    model = TopicModel(min_cluster_size=5, seed=3)
    assert not [k for k in vars(model) if k.endswith("_")]
    assert model.get_params()["min_cluster_size"] == 5 and model.get_params()["seed"] == 3
    assert model.fit(texts, X, word_vectors=words) is model
    for attr in ("labels_", "topic_info_", "words_", "reduced_embeddings_", "method_", "model_"):
        assert hasattr(model, attr)
    assert model.method_ == "bertopic"
    assert model.reduced_embeddings_.shape == (133, 5)
    assert list(model.topic_info_.columns) == ["topic", "label", "size", "words"]
    assert model.topic_info_["size"].sum() == 133


def test_same_seed_same_topics_other_seed_may_differ(seeds):
    texts, X, words = seeds
    a = TopicModel(seed=42).fit(texts, X, word_vectors=words)
    b = TopicModel(seed=42).fit(texts, X, word_vectors=words)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.reduced_embeddings_, b.reduced_embeddings_)
    assert a.topic_info_.equals(b.topic_info_)


def test_a_fit_handed_the_graph_and_counts_of_a_fit_before_computes_neither_and_finds_the_same(seeds, monkeypatch):
    from workbench.space.neighbors import NeighbourGraph
    from workbench.topics.terms import DocumentTerms

    texts, X, words = seeds
    first = TopicModel(seed=42).fit(texts, X, word_vectors=words)
    assert isinstance(first.graph_, NeighbourGraph) and isinstance(first.terms_, DocumentTerms)

    def computed(*args, **kwargs):
        raise AssertionError("computed again")

    monkeypatch.setattr(NeighbourGraph, "of", computed)
    monkeypatch.setattr(DocumentTerms, "__init__", computed)
    again = TopicModel(seed=42).fit(texts, X, word_vectors=words, graph=first.graph_, terms=first.terms_)
    np.testing.assert_array_equal(again.labels_, first.labels_)
    assert again.topic_info_.equals(first.topic_info_) and again.graph_ is first.graph_ and again.terms_ is first.terms_
    themes = TopicModel(seed=42, nr_topics=3).fit_from_topics(texts, X, first.fine_labels_, first.reduced_embeddings_,
                                                             words, graph=first.graph_, terms=first.terms_)
    assert themes.graph_ is first.graph_ and themes.terms_ is first.terms_
    assert first.reduce_to(3).topic_info_.equals(themes.topic_info_)
    monkeypatch.undo()
    other = TopicModel(seed=42).fit(texts[:-1], X[:-1], graph=first.graph_, terms=first.terms_)  # other papers
    assert other.graph_ is not first.graph_ and other.terms_ is not first.terms_ and len(other.labels_) == len(X) - 1


def test_outliers_are_reassigned_by_default(seeds):
    texts, X, words = seeds
    raw = TopicModel(reduce_outliers=False, min_cluster_size=8).fit(texts, X)
    reduced = TopicModel(min_cluster_size=8).fit(texts, X, word_vectors=words)
    assert (raw.labels_ == -1).mean() > 0.1, "without reassignment HDBSCAN leaves outliers here"
    assert (reduced.labels_ == -1).mean() <= 0.10


def test_labels_are_words_people_read_not_stop_words(seeds):
    texts, X, words = seeds
    model = TopicModel().fit(texts, X, word_vectors=words)
    stop = {"the", "of", "and", "to", "in", "we", "a", "is", "for", "that", "propose", "paper"}
    for words in model.topic_info_.words:
        assert words and not stop & set(words)
    assert any(" " in w for ws in model.topic_info_.words for w in ws), "bigrams are candidates"


def test_tfidf_embedder_finds_several_real_topics_on_the_seeds():
    texts = seed_abstracts()
    tfidf = TfidfEmbedder()
    X, _ = embed_with_cache(texts, tfidf, None, corpus=True)
    model = TopicModel().fit(texts, X, word_vectors=WordVectors(tfidf))
    topics = model.topic_info_[model.topic_info_.topic >= 0]
    assert 5 <= len(topics) <= 15
    assert topics["size"].max() < 0.6 * 133, "not one topic that swallows the corpus"
    words = " ".join(w for ws in topics.words for w in ws)
    for theme in ("agent", "alignment", "reward"):
        assert theme in words


def test_hierarchy_is_available(seeds):
    texts, X, words = seeds
    model = TopicModel().fit(texts, X, word_vectors=words)
    tree = model.hierarchy(texts)
    n_topics = int((model.topic_info_.topic >= 0).sum())
    assert len(tree) == n_topics - 1
    assert {"Parent_ID", "Child_Left_ID", "Child_Right_ID", "Distance"} <= set(tree.columns)
    assert list(tree.Distance) == sorted(tree.Distance), "cheapest merge first"
    assert sorted(tree.Topics.iloc[-1]) == list(range(n_topics)), "the last merge joins every topic"
    # the tree is the one reduce_to cuts: applying its first merges gives reduce_to's topics
    k = n_topics - 2
    reduced = model.reduce_to(k).labels_
    groups = {t: {t} for t in range(n_topics)}
    for _, merge in tree.head(n_topics - k).iterrows():
        joined = set(merge.Topics)
        groups = {t: (g | joined if t in joined else g) for t, g in groups.items()}
    for t in range(n_topics):
        together = set(reduced[model.labels_ == t].tolist())
        assert len(together) == 1
        assert {u for u in range(n_topics) if set(reduced[model.labels_ == u].tolist()) == together} == groups[t]


@pytest.mark.parametrize("n", [1, 2, 5, 20, MIN_PAPERS_FOR_BERTOPIC - 1, MIN_PAPERS_FOR_BERTOPIC])
def test_small_corpora_do_not_crash_and_say_how_they_were_grouped(seeds, n):
    texts, X, words = seeds
    model = TopicModel().fit(texts[:n], X[:n], word_vectors=words)
    assert len(model.labels_) == n
    assert (model.labels_ >= 0).all()
    assert model.topic_info_["size"].sum() == n
    if n < MIN_PAPERS_FOR_BERTOPIC:
        assert model.method_ in ("single", "agglomerative")
        assert "too few" in model.note_
    else:
        assert model.method_ == "bertopic" and model.note_ == ""


def test_refitting_the_topics_of_a_small_corpus_says_how_they_were_grouped(seeds):
    texts, X, words = seeds
    for n in (2, 20):
        fitted = TopicModel().fit(texts[:n], X[:n], word_vectors=words)
        again = TopicModel().fit_from_topics(texts[:n], X[:n], fitted.fine_labels_, fitted.reduced_embeddings_, words)
        np.testing.assert_array_equal(again.labels_, fitted.labels_)
        assert (again.method_, again.note_) == (fitted.method_, fitted.note_)


def test_label_words_go_through_the_cache_also_for_a_model_kept_for_later(seeds, tmp_path):
    texts, X, _ = seeds
    fake = FakeEmbedder()
    words = WordVectors(fake, tmp_path / "e.sqlite")
    model = TopicModel(seed=7).fit(texts, X, word_vectors=words)
    embedded = fake.embedded
    assert embedded > 0, "the candidate words were embedded (the papers' own vectors were not)"
    again = TopicModel(seed=7).fit(texts, X, word_vectors=words)
    assert fake.embedded == embedded, "the second fit found every word in the cache"
    assert again.topic_info_.equals(model.topic_info_)
    assert int((model.reduce_to(3).topic_info_.topic >= 0).sum()) <= 3, "later, the cache is opened again"


def test_bertopic_is_imported_without_torch():
    import subprocess
    import sys

    code = ("import sys; from workbench.topics.shims import HIDDEN, import_bertopic; import_bertopic(); "
            "print(sorted(m for m in HIDDEN if m in sys.modules)); "
            # BERTopic's plots come when a plot is asked for, and are the real ones then
            "print('matplotlib' in sys.modules, type(sys.modules['bertopic.plotting']).__name__); "
            "import bertopic._bertopic as b; f = b.plotting.visualize_barchart; "
            "print(f.__module__, type(sys.modules['bertopic.plotting']).__name__)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split("\n")[:3] == ["[]", "False _LaterPlots", "bertopic.plotting._barchart module"]


def test_bad_inputs_are_clear_errors(seeds):
    texts, X, _ = seeds
    with pytest.raises(InputError, match="no papers"):
        TopicModel().fit([], np.zeros((0, 4)))
    with pytest.raises(InputError, match=r"shape \(10, 64\) do not match 133 texts"):
        TopicModel().fit(texts, X[:10])
    bad = X.copy()
    bad[3, 3] = np.nan
    with pytest.raises(InputError, match="NaN"):
        TopicModel().fit(texts, bad)
    with pytest.raises(InputError, match="cluster_selection='best'; expected 'eom' or 'leaf'"):
        TopicModel(cluster_selection="best").fit(texts, X)
    with pytest.raises(InputError, match="representation='bert'; expected 'keybert', 'mmr' or None"):
        TopicModel(representation="bert").fit(texts, X)
    with pytest.raises(InputError, match="not fitted"):
        TopicModel().hierarchy(texts)


def test_readable_label_skips_variants_of_chosen_words():
    assert readable_label(["agents", "agent", "ai agents", "memory", "planning"]) == "ai agents, memory, planning"
    assert readable_label(["reward model", "reward models", "rlhf"]) == "reward model, rlhf"
    assert readable_label(["reinforcement", "reinforcement learning", "reward"]) == "reinforcement learning, reward"
    assert readable_label(["design", "agentic", "agent", "systems"]) == "design, agentic, systems"
    assert readable_label(["alignment", "aligned", "align", "values"]) == "alignment, values"
    assert readable_label(["data", "database", "system", "systematic"]) == "data, database, system", "not forms of one word"


def test_readable_label_skips_words_every_topic_has_and_phrases_nobody_wrote():
    from workbench.topics import common_words

    words = [["language models", "reward model", "rlhf"], ["language models", "agents", "memory"],
             ["language models", "vision", "images"], ["alignment", "values", "language models"]]
    common = common_words(words)
    assert common == {"language models"}
    assert readable_label(words[0], common=common) == "reward model, rlhf"
    assert common_words(words[:3]) == set(), "three topics are too few to call a word common"
    text = (" reinforcement learning from human feedback trains a reward model " * 3
            + " deep research agents browse deep research agents plan deep research agents cite ")
    label = readable_label(["learning human", "reward model", "deep research", "feedback", "browse"], text=text)
    assert label == "reward model, deep research agents, browse", "'feedback' is always 'human feedback'"
    assert readable_label(["deep", "reward model"], text=text) == "deep research agents, reward model"
    assert readable_label(["learning human"], text=text) == "learning human", "never an empty label"


def test_label_terms_are_not_made_only_of_the_corpus_s_most_common_words():
    frequent = {"language", "models", "agents", "tasks"}
    words = ["language models", "agents", "reward models", "tasks", "preference data", "rlhf"]
    assert readable_label(words, frequent=frequent) == "reward models, preference data, rlhf"
    assert readable_label(["task", "agentic", "tool use", "web"], frequent=frequent) == "tool use, web", "forms count"
    # at most four words: "preference data" would make five, "rlhf" fits
    assert readable_label(["process reward models", "preference data", "rlhf"], max_words=4) == "process reward models, rlhf"
    assert readable_label(["a b c d e", "x"], max_words=4) == "x"
    assert readable_label(["95 ci", "meta analysis", "covid 19"]) == "meta analysis, covid 19", "a number names nothing"
    # only frequent words: the common-word and as-written rules give way, the frequent rule never
    assert readable_label(["language models", "agents", "planning"], common={"planning"}, frequent=frequent) == "planning"
    assert readable_label(["language models", "agents"], frequent=frequent) == "language models, agents", "never empty"


def test_no_seed_label_term_is_made_only_of_the_20_words_in_the_most_papers(seeds):
    """Issue 14: "agent, tasks, data" named nothing on the seeds, where every topic has those."""
    from sklearn.feature_extraction.text import CountVectorizer

    from workbench.topics import stop_words

    texts, X, words = seeds
    counts = CountVectorizer(binary=True, stop_words=stop_words()).fit(texts)
    papers = np.asarray(counts.transform(texts).sum(axis=0)).ravel()
    vocabulary = counts.get_feature_names_out()
    ranked = [vocabulary[j] for j in np.argsort(-papers, kind="stable") if not vocabulary[j].isdigit()]
    top20 = set(ranked[:20])
    assert {"agent", "tasks", "agents", "models"} <= top20
    model = TopicModel().fit(texts, X, word_vectors=words)
    for label in model.topic_info_.label[model.topic_info_.topic >= 0]:
        terms = label.split(", ")
        assert all(not set(term.split()) <= top20 for term in terms), label
        assert 2 <= len(label.replace(",", " ").split()) <= 4 and len(terms) <= 3, label


def test_frequent_words_are_those_in_the_most_papers_without_stop_words_or_numbers():
    from workbench.topics import frequent_words

    texts = ["Agents plan tasks with tools in 2024."] * 5 + ["Agents and models of reward."] * 3 + ["Tools, 2024 and the models."] * 2
    # papers: agents 8, tools 7, plan 5, tasks 5, models 5, reward 3; "2024" and stop words not counted
    assert frequent_words(texts, n=2) == {"agents", "tools"}
    assert frequent_words(texts, n=4) == {"agents", "tools", "models", "plan"}, "ties alphabetical"
    assert frequent_words([], n=3) == set()


def test_representatives_are_the_papers_nearest_their_topic_s_mean_direction():
    from workbench.topics import representatives

    degrees = [-30, 0, 30, 5, 90, 100, 170, 45, 0]
    X = np.array([[np.cos(np.radians(d)), np.sin(np.radians(d))] for d in degrees])
    labels = np.array([0, 0, 0, 0, 1, 1, 1, -1, 0])
    # topic 0 points to about 1 degree: 0 (rows 1 and 8, the earlier first), then 5; topic 1 to 118
    assert representatives(X * 3, labels) == {-1: [], 0: [1, 8], 1: [5, 4]}
    assert representatives(X, labels, n=4)[0] == [1, 8, 3, 2]


def test_reduce_to_k_merges_along_the_hierarchy_and_matches_nr_topics(seeds):
    texts, X, words = seeds
    model = TopicModel(seed=7).fit(texts, X, word_vectors=words)
    n_topics = int((model.topic_info_.topic >= 0).sum())
    three = model.reduce_to(3)
    assert three is not model and int((model.topic_info_.topic >= 0).sum()) == n_topics, "the model itself is unchanged"
    assert int((three.topic_info_.topic >= 0).sum()) <= 3
    assert three.topic_info_["size"].sum() == 133
    np.testing.assert_array_equal(three.labels_, model.reduce_to(3).labels_)
    direct = TopicModel(seed=7, nr_topics=3).fit(texts, X, word_vectors=words)
    np.testing.assert_array_equal(three.labels_, direct.labels_)
    # papers that shared a topic before still share one after merging
    for t in set(model.labels_.tolist()) - {-1}:
        assert len(set(three.labels_[model.labels_ == t].tolist())) == 1


def test_cluster_gives_the_same_partition_as_fit_and_stability_is_scored(seeds):
    from sklearn.metrics import adjusted_rand_score

    texts, X, words = seeds
    model = TopicModel(seed=3).fit(texts, X, word_vectors=words)
    assert adjusted_rand_score(model.labels_, TopicModel(seed=3).cluster(X)) == 1.0
    assert set(model.timings_) >= {"umap", "hdbscan", "labels"}
    scores = model.topic_stability(seeds=(4, 5))
    assert list(scores.columns) == ["topic", "label", "size", "words", "stability"]
    assert scores.stability.between(0, 1).all()


def test_merge_topics_keeps_outliers_and_respects_k():
    from workbench.topics import merge_topics

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(6, 8))
    labels = np.repeat(np.arange(6), 10)
    X = centres[labels] + 0.01 * rng.normal(size=(60, 8))
    labels[:3] = -1
    merged = merge_topics(X, labels, k=2)
    assert (merged[:3] == -1).all() and len(set(merged[3:].tolist())) == 2
    np.testing.assert_array_equal(merge_topics(X, labels, k=10), labels)
    with pytest.raises(InputError, match="nr_topics=0"):
        merge_topics(X, labels, k=0)


def test_ward_merges_join_the_cheapest_pairs_first_and_stop_at_the_variance_share():
    from workbench.topics import MIN_MERGED_TOPICS, merge_topics, ward_merges

    rng = np.random.default_rng(1)
    pairs = 10
    centres = rng.normal(size=(pairs, 16))
    # 20 topics: each pair of topics sits close together, the pairs far apart
    topic_centres = np.repeat(centres, 2, axis=0) + 0.05 * rng.normal(size=(2 * pairs, 16))
    labels = np.repeat(np.arange(2 * pairs), 15)
    X = topic_centres[labels] + 0.02 * rng.normal(size=(len(labels), 16))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    topics, merges, total = ward_merges(X, labels)
    costs = [c for _, _, c in merges]
    assert len(merges) == 2 * pairs - 1 and costs == sorted(costs), "Ward's costs only grow"
    assert {(topics[i] // 2, topics[j] // 2) for i, j, _ in merges[:pairs]} == {(p, p) for p in range(pairs)}
    merged = merge_topics(X, labels, max_variance=0.009)
    assert len(set(merged.tolist())) == pairs, "every pair merged, no two pairs"
    for p in range(pairs):
        assert len(set(merged[labels // 2 == p].tolist())) == 1
    few = merge_topics(X[labels < 12], labels[labels < 12], max_variance=0.5)
    assert len(set(few.tolist())) == min(MIN_MERGED_TOPICS, 12), "merging by cost keeps a floor of topics"
    np.testing.assert_array_equal(merge_topics(X, labels, k=pairs), merged)


def test_label_words_are_ranked_by_how_well_they_find_the_topics_papers():
    from workbench.topics import rank_words

    texts = ["reward model training"] * 8 + ["agents plan with memory"] * 8 + ["models of agents and rewards 95"] * 4
    labels = np.array([0] * 8 + [1] * 8 + [0, 0, 1, 1])
    candidates = {0: ["models", "reward model", "95"], 1: ["agents", "memory", "models"]}
    ranked = rank_words(texts, labels, candidates, n=3)
    assert [w for w, _ in ranked[0]] == ["reward model", "models"], "digits-only words are dropped"
    assert ranked[0][0][1] == pytest.approx(2 * 8 / (8 + 10))
    assert [w for w, _ in ranked[1]][:2] == ["agents", "memory"]


def test_papers_containing_words_are_what_countvectorizer_finds():
    """word_hits and frequent_words no longer go through CountVectorizer or filter every word
    of every paper: the same papers, words and phrases, on papers of any script."""
    import random
    from collections import Counter

    from sklearn.feature_extraction.text import CountVectorizer

    from workbench.corpus.writing_systems import words
    from workbench.topics import frequent_words
    from workbench.topics.labels import _containing, _stop_set

    pieces = ["Reward", "model", "the", "of", "强化", "学习", "agents", "Größe", "x", "95", "RL_x", "-", ", ", ". ",
              "हिन्दी", " ", " ", " "]
    rng = random.Random(5)
    texts = ["".join(rng.choices(pieces, k=rng.randrange(0, 25))) for _ in range(400)]
    vocabulary = sorted({"reward", "reward model", "model the", "强 化", "化 学", "agents", "größe", "x", "95 rl_x",
                         "हिन्दी", "three word phrase", "absent"})
    rows = list(range(0, 400, 3))
    reference = CountVectorizer(vocabulary=vocabulary, ngram_range=(1, 2), binary=True, tokenizer=words,
                                token_pattern=None).transform([texts[i] for i in rows])
    column = {w: j for j, w in enumerate(vocabulary)}
    assert (_containing(texts, rows, column) != reference).nnz == 0
    assert reference.nnz > 100
    stop = _stop_set()
    in_papers = Counter(w for t in texts for w in set(words(t.lower())))
    expected = sorted(((-c, w) for w, c in in_papers.items()
                       if len(w) > 1 and w not in stop and not w.isdigit() and not ("强" in w or "学" in w)))
    assert frequent_words(texts, n=3) == {w for _, w in expected[:3]}


def test_labels_rank_words_by_f_half_precision_counting_more_than_recall():
    from workbench.topics import LABEL_BETA, rank_words, word_hits

    texts = ["alpha beta"] * 5 + ["alpha"] * 5 + ["alpha gamma"] * 4 + ["gamma"] * 6
    labels = np.array([0] * 10 + [1] * 10)
    candidates = {0: ["alpha", "beta", "95"]}
    # (word, papers of the topic with it, papers with it, papers of the topic); digits dropped
    assert word_hits(texts, labels, candidates) == {0: [("alpha", 10, 14, 10), ("beta", 5, 5, 10)]}
    by_f1 = rank_words(texts, labels, candidates)[0]
    assert by_f1 == [("alpha", pytest.approx(2 * 10 / (10 + 14))), ("beta", pytest.approx(2 * 5 / (10 + 5)))]
    assert LABEL_BETA == 0.5
    by_f_half = rank_words(texts, labels, candidates, beta=0.5)[0]
    assert by_f_half == [("beta", pytest.approx(1.25 * 5 / (0.25 * 10 + 5))), ("alpha", pytest.approx(1.25 * 10 / (0.25 * 10 + 14)))]


ROBOTS_ZH = [
    "本文提出一种基于强化学习的机器人导航方法，在仿真环境中提高了导航成功率。",
    "我们研究多机器人协作中的强化学习策略，实验表明该策略能够减少碰撞。",
    "针对机器人抓取任务，本文设计了一种深度强化学习算法，并在真实机器人上验证。",
    "本文将模仿学习与强化学习结合，用于机器人操作技能的快速获取。",
    "我们提出一种分层强化学习框架，使机器人能够完成长时程的导航任务。",
    "在稀疏奖励条件下，本文提出的强化学习探索方法显著加快了机器人训练。",
]
MEDICINE_ZH = [
    "我们构建了一个大规模中文医学问答数据集，并评估了多种语言模型的表现。",
    "本文收集了医院电子病历，建立了用于疾病诊断的医学文本数据集。",
    "我们提出一种医学问答系统，利用知识图谱回答患者关于药物的问题。",
    "本文评估了大语言模型在医学考试问答中的准确率，并分析了错误类型。",
    "针对罕见疾病，我们构建了医学文献数据集，并标注了疾病与基因的关系。",
    "本文研究医学问答中的答案可解释性，提出了基于证据的回答生成方法。",
]
ROBOTS_EL = [
    "Προτείνουμε μια μέθοδο ενισχυτικής μάθησης για την πλοήγηση ρομπότ σε άγνωστα περιβάλλοντα.",
    "Η πλοήγηση ρομπότ με ενισχυτική μάθηση βελτιώνεται με ιεραρχικές πολιτικές.",
    "Μελετάμε τη συνεργασία πολλών ρομπότ με ενισχυτική μάθηση σε αποθήκες.",
    "Ένα ρομπότ μαθαίνει να πιάνει αντικείμενα με ενισχυτική μάθηση από λίγες δοκιμές.",
]


def _two_groups(n_a: int, n_b: int, dims: int = 64) -> np.ndarray:
    X = np.random.RandomState(0).rand(n_a + n_b, dims).astype(np.float32) * 0.1
    X[:n_a, 0] += 1
    X[n_a:, 1] += 1
    return X / np.linalg.norm(X, axis=1, keepdims=True)


@pytest.mark.parametrize("word_vectors", [None, FakeEmbedder().embed], ids=["c-tf-idf", "keybert"])
def test_chinese_topic_words_are_words_of_their_papers(word_vectors):
    texts = ROBOTS_ZH + MEDICINE_ZH
    model = TopicModel(seed=1).fit(texts, _two_groups(6, 6), word_vectors=word_vectors)
    info = model.topic_info_.set_index("topic")
    for topic, own in ((model.labels_[0], ROBOTS_ZH), (model.labels_[-1], MEDICINE_ZH)):
        words, label = info.words[topic], info.label[topic].split(", ")
        assert words and all(len(w) >= 2 for w in words), "character n-grams, not lone characters"
        assert len(label) == 3 and all(any(w in t for t in own) for w in label), label
    assert "强化学习" in info.label[model.labels_[0]]
    assert "医学" in info.label[model.labels_[-1]]


def test_greek_topic_words_are_whole_words_without_any_embedder():
    """BERTopic's English clean-up (used without an embedding model) deletes letters outside
    A-Z: Greek papers would get no words at all."""
    texts = ROBOTS_EL + [t.replace("ρομπότ", "αυτοκίνητα") for t in ROBOTS_EL]
    model = TopicModel(seed=1).fit(texts, _two_groups(4, 4), word_vectors=None)
    words = [w for ws in model.topic_info_.words for w in ws]
    assert "ρομπότ" in words and "αυτοκίνητα" in words
    assert all(w in " ".join(texts).lower() for w in words)


def test_topic_text_is_the_words_of_the_topics_papers_joined():
    """topic_text reads paper by paper (the ASCII ones on the fast path): the same string as the
    words of the topic's papers joined, whatever scripts they mix."""
    import random

    from workbench.corpus.writing_systems import words_as_written
    from workbench.topics.labels import topic_text

    rng = random.Random(3)
    pieces = ["Reward model", "ΑΣ", "Σ x", "İstanbul", "中文的 text", "", "  ", "ß", "naïve-Bayes, 3.5%", "x\u0301y"]
    texts = [" ".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(300)]
    labels = np.array([rng.randint(-1, 3) for _ in texts])
    for topic in (-1, 0, 1, 2, 9):
        for most in (2000, 5):
            expected = words_as_written(" ".join(texts[i] for i in np.flatnonzero(labels == topic)[:most]))
            assert topic_text(texts, labels, topic, most) == expected
