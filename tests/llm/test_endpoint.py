"""One rule for the endpoint, key and model, shared by the judge and the generator."""

from __future__ import annotations

import pytest

from lmr_author.generation.runner import config_from_env as generate_config
from lmr_author.judge.config import config_from_env as judge_config
from lmr_author.llm.endpoint import resolve_endpoint
from lmr_author.util.errors import UserError


def test_flags_win_over_the_environment() -> None:
    env = {"OPENAI_BASE_URL": "http://env/v1", "OPENAI_API_KEY": "k", "OPENAI_MODEL": "m-env"}
    endpoint = resolve_endpoint(base_url="http://flag/v1", model="m-flag", environ=env)
    assert (endpoint.base_url, endpoint.api_key, endpoint.model) == (
        "http://flag/v1",
        "k",
        "m-flag",
    )


def test_a_key_or_a_base_url_configures_an_endpoint() -> None:
    assert resolve_endpoint(environ={"OPENAI_API_KEY": "k"}).configured
    assert resolve_endpoint(environ={"OPENAI_BASE_URL": "http://x/v1"}).configured
    assert not resolve_endpoint(environ={}).configured


@pytest.mark.parametrize("build", [judge_config, generate_config], ids=["judge", "generate"])
def test_an_unset_named_key_variable_is_refused_by_both(build: object) -> None:
    """The generator used to fall back to no key silently; now both refuse alike."""
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    with pytest.raises(UserError, match="MY_KEY"):
        build(model="m", base_url=None, api_key_env="MY_KEY", environ=env)  # type: ignore[operator]


@pytest.mark.parametrize("build", [judge_config, generate_config], ids=["judge", "generate"])
def test_both_read_the_same_variables(build: object) -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k", "OPENAI_MODEL": "m"}
    config = build(model=None, base_url=None, environ=env)  # type: ignore[operator]
    llm = config.llm
    assert (llm.base_url, llm.api_key, llm.model) == ("http://127.0.0.1:9/v1", "k", "m")
