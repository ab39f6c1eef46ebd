"""`venusctl model pull | list | info`: the model files on this machine."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, Optional

import typer

from venusctl.cli.common import VerboseOpt, setup_logging
from venusctl.cli.panels import Typer

model_app = Typer(help="Download, list and inspect models.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(model_app, name="model")


def _say(text: str) -> None:
    sys.stderr.write(f"venusctl: {text}\n")
    sys.stderr.flush()


@model_app.command("pull")
def pull_command(
    repo: Annotated[
        Optional[str],  # noqa: UP045
        typer.Argument(help="Hub repo owner/name[:QUANT] (default: the configured "
                            "UI-Venus-2-9B repo)."),
    ] = None,
    quant: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--quant", "-q", help="Quantisation, e.g. Q4_K_M, Q8_0 "
                                           "(default: Q4_K_M or the configured one)."),
    ] = None,
    verbose: VerboseOpt = False,
) -> int:
    """Download a model and its projector into the hub cache (resumable, checksums verified).

    Example: venusctl model pull bartowski/UI-Venus-2-9B-GGUF --quant Q4_K_M
    """
    from venusctl.model.files.manage import pull

    setup_logging(verbose)
    local = pull(repo, quant, _say)
    print(f"model:  {local.model_path}\nmmproj: {local.mmproj_path}")
    print(f"use it: venusctl do \"…\" --model {local.reference}")
    return 0


@model_app.command("list")
def list_command(
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per model.")] = False,
) -> int:
    """Show the models on this machine and which one `venusctl do` uses.

    Example: venusctl model list
    """
    from venusctl.model.files.hub import human_size
    from venusctl.model.files.manage import default_model, listing

    found = listing()
    chosen, source = default_model(found.config)
    if json_out:
        for model in found.models:
            print(json.dumps({
                "reference": model.reference, "repo": model.repo, "quant": model.quant,
                "revision": model.revision, "model": str(model.model_path),
                "mmproj": str(model.mmproj_path) if model.mmproj_path else None,
                "size_bytes": model.size_bytes,
            }))
        return 0
    if not found.models:
        print(f"no models in {found.cache_dir}; run `venusctl model pull`")
    for model in found.models:
        print(f"{model.reference}  {human_size(model.size_bytes)}\n"
              f"    model:  {model.model_path}\n    mmproj: {model.mmproj_path or '-'}")
    print(f"default: {chosen} ({source})")
    return 0


@model_app.command("info")
def info_command(
    target: Annotated[str, typer.Argument(help="A GGUF file, or a downloaded "
                                               "owner/name[:QUANT].")],
    json_out: Annotated[bool, typer.Option("--json", help="The facts as JSON.")] = False,
) -> int:
    """Show architecture, quantisation, context length, projector type and chat template.

    Example: venusctl model info ~/models/UI-Venus-2-9B-Q4_K_M.gguf
    """
    from venusctl.model.files.manage import info

    facts = info(target)
    if json_out:
        print(json.dumps(facts if len(facts) > 1 else facts[0], indent=2))
        return 0
    print("\n\n".join(_facts_text(f) for f in facts))
    return 0


def _facts_text(facts: dict[str, Any]) -> str:
    from venusctl.model.files.hub import human_size

    lines = [f"{facts['path']}"]
    shown = dict(facts)
    shown.pop("path")
    shown["size_bytes"] = human_size(facts["size_bytes"])
    shown["parameters"] = f"{facts['parameters'] / 1e6:.1f} M"
    shown["tensor_types"] = ", ".join(f"{k} x{v}" for k, v in facts["tensor_types"].items())
    if "chat_template" in shown:
        shown["chat_template"] = "embedded" if facts["chat_template"] else "none"
    for key, value in shown.items():
        if value is not None:
            lines.append(f"  {key.replace('_', ' ').replace(' bytes', '')}: {value}")
    return "\n".join(lines)
