; References in Julia. `f(x)`, `f.(xs)`, `Mod.f(x)`, `Foo{T}(x)` and `@m x` are calls (a method
; head, `function f(x)` or `f(x) = ...`, is none: refs.py drops the calls a definition starts
; with); `include("file.jl")` brings every name of that file (it joins this module),
; `using A` every name A exports and A itself, `import A` (or `import A as B`) the module,
; `using A: f` and `import A: f` the names; `struct S <: T` extends T.
(call_expression . (identifier) @call.name (#not-eq? @call.name "include"))
(call_expression . (field_expression (_) @call.receiver . (identifier) @call.name .))
(call_expression . (parametrized_type_expression . (identifier) @call.name))
(broadcast_call_expression . (identifier) @call.name)
(broadcast_call_expression . (field_expression (_) @call.receiver . (identifier) @call.name .))
(macrocall_expression (macro_identifier (identifier) @call.name))
(call_expression . (identifier) @_include . (argument_list . (string_literal (content) @import.module) .)
  (#eq? @_include "include"))
(using_statement [(identifier) (import_path) (scoped_identifier)] @import.module)
(import_statement [(identifier) (import_path) (scoped_identifier)] @import.module)
(import_statement (import_alias . (_) @import.module . (identifier) @import.alias))
(selected_import . (_) @import.module (identifier) @import.name)
(struct_definition (type_head (binary_expression . (_) . (operator) . (_) @extends.name)))
(abstract_definition (type_head (binary_expression . (_) . (operator) . (_) @extends.name)))
