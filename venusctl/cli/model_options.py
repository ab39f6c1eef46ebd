"""The model flags, declared once for every command that runs a model (`do`, `ground`).

Each flag defaults to None, meaning "not given", so the environment and the config
file can still supply the value (flags > environment > config file > default).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

if TYPE_CHECKING:
    from venusctl.run.build import ModelOptions

PANEL = "Model"

ModelOpt = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at runtime on 3.10
    typer.Option("--model", "-m", rich_help_panel=PANEL,
                 help="Local GGUF file or folder, or a hub repo owner/name[:QUANT] "
                      "(env VENUSCTL_MODEL; default: the UI-Venus-2-9B repo)."),
]
MmprojOpt = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--mmproj", rich_help_panel=PANEL,
                 help="Projector GGUF (default: the mmproj file next to the model)."),
]
NCtxOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--n-ctx", min=512, rich_help_panel=PANEL,
                 help="Context size in tokens (default: sized from text, image and answer)."),
]
ThreadsOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--threads", min=1, rich_help_panel=PANEL, help="CPU threads."),
]
GpuLayersOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--gpu-layers", min=-1, rich_help_panel=PANEL,
                 help="Layers to offload to the GPU (-1: all, the default where the build "
                      "has a GPU backend; 0: CPU only)."),
]
ImageMinOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--image-min-tokens", min=1, rich_help_panel=PANEL,
                 help="Fewest tokens per screenshot (small images are scaled up)."),
]
ImageMaxOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--image-max-tokens", min=1, rich_help_panel=PANEL,
                 help="Most tokens per screenshot (the main speed/accuracy dial)."),
]
InterfaceOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--interface", rich_help_panel=PANEL,
                 help="authors: speak exactly the model authors' interface (unresized PNG "
                      "screenshots, earlier screenshots resent); lean: the same prompts with "
                      "screenshots capped at 1280 tokens and none resent. Default: authors "
                      "on a GPU or a server, lean on a CPU-only local model "
                      "(env VENUSCTL_INTERFACE)."),
]
PromptsOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--prompts", rich_help_panel=PANEL,
                 help="authors: the model authors' own prompt texts (fetch them once with "
                      "`venusctl prompts pull`); builtin: venusctl's. Default: authors when "
                      "pulled, else builtin (env VENUSCTL_PROMPTS)."),
]
NoGrammarOpt = Annotated[
    bool,
    typer.Option("--no-grammar", rich_help_panel=PANEL,
                 help="Local model: sample freely instead of constraining answers to "
                      "valid actions."),
]
ServerOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--server", rich_help_panel=PANEL,
                 help="OpenAI-compatible server URL, e.g. http://127.0.0.1:8080/v1 "
                      "(llama-server, vLLM, LM Studio, Ollama; env VENUSCTL_SERVER)."),
]
ServerModelOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--server-model", rich_help_panel=PANEL,
                 help="The model name the server knows (default: the one it serves)."),
]
ApiKeyEnvOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--api-key-env", rich_help_panel=PANEL,
                 help="Environment variable holding the server's API key (default: "
                      "VENUSCTL_API_KEY, else the keyring entry 'venusctl' / server URL)."),
]


def model_options(
    *,
    answers: Path | None = None,
    model: str | None = None,
    mmproj: Path | None = None,
    n_ctx: int | None = None,
    threads: int | None = None,
    gpu_layers: int | None = None,
    image_min_tokens: int | None = None,
    image_max_tokens: int | None = None,
    no_grammar: bool = False,
    server: str | None = None,
    server_model: str | None = None,
    api_key_env: str | None = None,
    assume_yes: bool = False,
    interface: str | None = None,
    prompts: str | None = None,
) -> ModelOptions:
    from venusctl.run.build import ModelOptions

    return ModelOptions(
        answers=answers, model=model, mmproj=mmproj, n_ctx=n_ctx, threads=threads,
        gpu_layers=gpu_layers, image_min_tokens=image_min_tokens,
        image_max_tokens=image_max_tokens, grammar=False if no_grammar else None,
        server=server, server_model=server_model, api_key_env=api_key_env,
        assume_yes=assume_yes, interface=interface, prompts=prompts,
    )
