; References in MATLAB. `f(x)` is a call, or an array indexed (the same syntax): the graph
; reaches only functions, the file's own or `f.m`'s, so a variable reaches nothing; `obj.m(x)`
; and `pkg.sub.f(x)` are calls on a receiver (refs.py reads it whole); a command, `f arg`
; (`hold on`), is a call of f; `classdef A < B & C` extends B and C.
(function_call name: (identifier) @call.name)
(command (command_name) @call.name)
(class_definition (superclasses (property_name (identifier) @extends.name)))
