; References in Python. Captures: @call.name/@call.receiver, @import.module/.name/.alias,
; @alias.of, @extends.name (see mindex/parse/refs.py).
(call function: (identifier) @call.name)
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call.name))
; A decorator without arguments calls what it names (`@define`, `@attrs.define`); with
; arguments it is a call above.
(decorator (identifier) @call.name)
(decorator (attribute object: (_) @call.receiver attribute: (identifier) @call.name))
(import_statement name: (dotted_name) @import.module)
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name)
(import_from_statement module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.module (wildcard_import) @import.name)
; A name a module binds to another (`s = attributes = attrs` in attr/__init__.py: calls of
; `attr.s` reach `attrs`); the chain is read in refs.py.
(module (expression_statement (assignment left: (identifier) right: [(identifier) (assignment)]) @alias.of))
(class_definition superclasses: (argument_list [(identifier) (attribute)] @extends.name))
(class_definition superclasses: (argument_list (subscript value: [(identifier) (attribute)] @extends.name)))
; What a name holds, for calls on it (@type.var, its type @type.name): an annotated parameter
; or assignment, the instance of a class an assignment makes (@type.new: `s = Session()`), a
; literal it is given (@type.literal: `d = {}`), `*args` and `**kwargs`; a name given what a
; function returns (@type.new of a function: `r = self.send()`), and what a function says it
; returns (@returns.name); `with Client() as c` (@type.class: a class only, as most
; `__enter__`s return the instance); an attribute of `self` (@type.attr) annotated, made or
; given a name (@type.same: `self.pool = pool`); @_self is checked to be `self` in refs.py
; (cheaper than an #eq? predicate, which the Python binding runs for each match).
(typed_parameter (identifier) @type.var type: (type) @type.name)
(typed_default_parameter name: (identifier) @type.var type: (type) @type.name)
(assignment left: (identifier) @type.var type: (type) @type.name)
(assignment left: (identifier) @type.var right: (call function: [(identifier) (attribute)] @type.new))
(assignment left: (identifier) @type.var right: (await (call function: [(identifier) (attribute)] @type.new)))
(function_definition return_type: (type) @returns.name)
(assignment left: (identifier) @type.var right: [(dictionary) (dictionary_comprehension) (list) (list_comprehension)
  (set) (set_comprehension) (string)] @type.literal)
(parameters (list_splat_pattern (identifier) @type.var) @type.literal)
(parameters (dictionary_splat_pattern (identifier) @type.var) @type.literal)
(typed_parameter (list_splat_pattern (identifier) @type.var) @type.literal)  ; `*args: int`: a tuple still
(typed_parameter (dictionary_splat_pattern (identifier) @type.var) @type.literal)
(as_pattern (call function: [(identifier) (attribute)] @type.class) alias: (as_pattern_target (identifier) @type.var))
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @type.attr) type: (type) @type.name)
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @type.attr)
  right: (call function: [(identifier) (attribute)] @type.new))
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @type.attr) right: (identifier) @type.same)
; A loop's variable holds an item of what it iterates (@item.var, or the second name of
; @item.pair for `k, v in d.items()` and `i, x in enumerate(xs)`; @item.of the iterable).
(for_statement left: (identifier) @item.var right: (_) @item.of)
(for_statement left: (pattern_list) @item.pair right: (call) @item.of)
(for_in_clause left: (identifier) @item.var right: (_) @item.of)
(for_in_clause left: (pattern_list) @item.pair right: (call) @item.of)
