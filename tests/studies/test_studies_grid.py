"""The study grid, pure: parsing axes and expanding their cartesian product."""
import pytest

from voyage.studies.grid import GridError, cell_label, expand, parse_vary, with_seed


def test_axes_keep_their_order_and_values():
    axes = parse_vary(["profile=offline,local", "hot-memory-limit=30,50"])
    assert axes == {"profile": ["offline", "local"], "hot_memory_limit": ["30", "50"]}


def test_seeds_as_a_count_or_a_list():
    assert parse_vary(["seeds=3"]) == {"seed": ["1", "2", "3"]}
    assert parse_vary(["seed=7, 9"]) == {"seed": ["7", "9"]}


@pytest.mark.parametrize("spec, words", [
    ("seed", "NAME=V1"), ("=1,2", "NAME=V1"), ("seed=", "values"), ("seed=1,,2", "none empty"),
    ("seed=1,1", "repeated"), ("seeds=0", "at least 1"), ("seeds=2,3", "one count"),
])
def test_malformed_axes_say_what_is_wrong(spec, words):
    with pytest.raises(GridError, match=words):
        parse_vary([spec])


def test_an_axis_given_twice_is_refused():
    with pytest.raises(GridError, match="given twice"):
        parse_vary(["seed=1", "seeds=2"])


def test_the_seed_axis_goes_last_and_defaults_to_the_base_seed():
    assert list(with_seed({"seed": ["1", "2"], "profile": ["a"]}, 1912)) == ["profile", "seed"]
    assert with_seed({"profile": ["a"]}, 1912) == {"profile": ["a"], "seed": ["1912"]}
    with pytest.raises(GridError, match="whole number"):
        with_seed({"seed": ["x"]}, 1912)


def test_expansion_is_the_cartesian_product_first_axis_slowest():
    cells = expand({"profile": ["offline", "local"], "hot_memory_limit": ["30", "50"], "seed": ["1", "2", "3"]})
    assert len(cells) == 12
    assert cells[0].as_dict() == {"profile": "offline", "hot_memory_limit": "30", "seed": "1"}
    assert cells[1].as_dict() == {"profile": "offline", "hot_memory_limit": "30", "seed": "2"}
    assert cells[3].as_dict() == {"profile": "offline", "hot_memory_limit": "50", "seed": "1"}
    assert cells[-1].as_dict() == {"profile": "local", "hot_memory_limit": "50", "seed": "3"}
    assert len({c.values for c in cells}) == 12
    assert cells[4].seed == 2 and cells[4].without_seed == (("profile", "offline"), ("hot_memory_limit", "50"))


def test_a_huge_grid_is_refused():
    with pytest.raises(GridError, match="at most"):
        expand({"seed": [str(i) for i in range(100)], "x": [str(i) for i in range(11)]})


def test_cell_labels_leave_out_the_seed():
    assert cell_label({"profile": "offline", "seed": "3"}) == "profile=offline"
    assert cell_label({"seed": "3"}) == "all runs"
