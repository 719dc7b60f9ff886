; References in Elixir. `alias MyApp.Repo` is an import of MyApp.Repo as Repo (refs.py);
; `Repo.all(q)` and `MyApp.Repo.all(q)` call a module's function; the defining and control
; forms (`def`, `if`, `case`, ...) are no calls.
(call target: (identifier) @call.name
  (#not-match? @call.name "^(def|defp|defmodule|defmacro|defmacrop|defprotocol|defimpl|defguard|defguardp|defdelegate|defstruct|defexception|defoverridable|alias|import|require|use|quote|unquote|if|unless|case|cond|with|for|fn|raise|reraise|receive|try|throw|super)$"))
(call target: (dot left: (alias) @call.receiver right: (identifier) @call.name))
; `conn.status` without parentheses reads a map's field: a call on a variable has them
(call target: (dot left: (identifier) @call.receiver right: (identifier) @call.name) (arguments))
(call target: (identifier) @_alias (arguments . (alias) @import.module) (#eq? @_alias "alias"))
