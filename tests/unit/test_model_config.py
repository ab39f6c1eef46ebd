"""Model settings: flags > environment > config file > default, and the config file's checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from venusctl.core.errors import UsageError
from venusctl.model.select import backend
from venusctl.model.settings import (
    DEFAULT_QUANT,
    DEFAULT_REPO,
    config_path,
    read_config_file,
    resolve,
)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_when_nothing_is_set():
    config = resolve({}, environ={}, file_values={})
    assert config.model is None and config.server is None
    assert (config.repo, config.quant) == (DEFAULT_REPO, DEFAULT_QUANT)
    assert config.source("repo") == "default"


def test_flag_beats_environment_beats_file():
    file_values = {"model": "from/file", "threads": 2, "n_ctx": 4096, "quant": "Q8_0"}
    env = {"VENUSCTL_MODEL": "from/env", "VENUSCTL_THREADS": "6"}
    config = resolve({"model": "/models/flag.gguf"}, environ=env, file_values=file_values)
    assert config.model == "/models/flag.gguf" and config.source("model") == "flag"
    assert config.threads == 6 and config.source("threads") == "env VENUSCTL_THREADS"
    assert config.n_ctx == 4096 and config.source("n_ctx") == "config file"
    assert config.quant == "Q8_0"


def test_environment_values_are_converted_and_bad_ones_named():
    config = resolve({}, environ={"VENUSCTL_GRAMMAR": "off", "VENUSCTL_SERVER_TIMEOUT": "2.5"},
                     file_values={})
    assert config.grammar is False and config.server_timeout == 2.5
    with pytest.raises(UsageError, match="VENUSCTL_N_CTX"):
        resolve({}, environ={"VENUSCTL_N_CTX": "lots"}, file_values={})


def test_empty_environment_variable_counts_as_unset():
    config = resolve({}, environ={"VENUSCTL_MODEL": "  "}, file_values={"model": "a/b"})
    assert config.model == "a/b"


def test_config_file_is_read_from_the_user_config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = config_path({})
    assert path == tmp_path / "xdg" / "venusctl" / "config.toml"
    path.parent.mkdir(parents=True)
    write(path, '[model]\nmodel = "~/m.gguf"\nmmproj = "~/p.gguf"\ngrammar = false\n'
                '[server]\nurl = "http://127.0.0.1:8080/v1"\ntimeout = 30\n'
                '[safety]\nwhatever = 1\n')
    config = resolve({}, environ={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert config.model == "~/m.gguf"
    assert config.mmproj == Path.home() / "p.gguf"
    assert config.grammar is False and config.server_timeout == 30.0
    assert config.server == "http://127.0.0.1:8080/v1"


def test_venusctl_config_points_elsewhere(tmp_path):
    path = write(tmp_path / "mine.toml", '[model]\nquant = "Q5_K_M"\n')
    config = resolve({}, environ={"VENUSCTL_CONFIG": str(path)})
    assert config.quant == "Q5_K_M" and config.source("quant") == "config file"


def test_missing_config_file_is_empty(tmp_path):
    assert read_config_file(tmp_path / "absent.toml") == {}


@pytest.mark.parametrize(("text", "message"), [
    ("[model]\nmodle = 'x'\n", "no setting 'modle'"),
    ("[server]\napi_key = 'sk-123'\n", "keep secrets out"),
    ("[model]\nthreads = 'many'\n", "threads"),
    ("[model\n", "not valid TOML"),
    ("model = 3\n", "must be a table"),
    ("[model]\ngrammar = 'perhaps'\n", "not true or false"),
])
def test_config_file_mistakes_are_one_line_usage_errors(tmp_path, text, message):
    path = write(tmp_path / "config.toml", text)
    with pytest.raises(UsageError, match=message) as caught:
        read_config_file(path)
    assert "\n" not in str(caught.value)
    assert "sk-123" not in str(caught.value)


def test_stronger_source_picks_the_backend():
    local_flag = resolve({"model": "m.gguf"}, environ={}, file_values={"server": "http://h"})
    assert backend(local_flag) == "local"
    server_env = resolve({}, environ={"VENUSCTL_SERVER": "http://h"},
                         file_values={"model": "a/b"})
    assert backend(server_env) == "server"
    assert backend(resolve({}, environ={}, file_values={})) == "local"


def test_both_backends_at_the_same_level_is_an_error():
    config = resolve({}, environ={"VENUSCTL_MODEL": "a/b", "VENUSCTL_SERVER": "http://h"},
                     file_values={})
    with pytest.raises(UsageError, match="choose one"):
        backend(config)
