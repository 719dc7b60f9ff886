; References in shell scripts. A command is a call of its name (a function the script or a
; script it sources defines; `curl` and `grep` reach nothing in the index; the shell's own
; builtins and keywords are no calls). `source f.sh`, `. f.sh` and `\. f.sh` bring every
; function f.sh defines, as an import of all its names.
(command name: (command_name (word) @call.name)
  (#not-match? @call.name "^(source|\\\\?\\.|return|exit|local|export|declare|typeset|readonly|unset|shift|set|eval|exec|cd|pwd|echo|printf|read|test|\\[|\\[\\[|true|false|:|break|continue|command|builtin|trap|wait|let|getopts|umask|shopt)$"))
(command name: (command_name (word) @_source) . argument: [(word) (string) (raw_string) (concatenation)] @import.module
  (#match? @_source "^(source|\\\\?\\.)$"))
