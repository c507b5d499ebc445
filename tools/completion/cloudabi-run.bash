# bash completion for cloudabi-run; installed by cmake --install into
# share/bash-completion/completions.
_cloudabi_run() {
  local cur prev
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  case $cur in
  --plan=*) COMPREPLY=($(compgen -P --plan= -W "text json" -- "${cur#--plan=}")); return ;;
  --trace-format=*) COMPREPLY=($(compgen -P --trace-format= -W "text json" -- "${cur#--trace-format=}")); return ;;
  --trace-output=*) COMPREPLY=($(compgen -P --trace-output= -f -- "${cur#--trace-output=}")); return ;;
  --report=*) COMPREPLY=($(compgen -P --report= -f -- "${cur#--report=}")); return ;;
  --trace=*) COMPREPLY=($(compgen -P --trace= -W "fd file mem poll proc sock clock lock condvar random thread local" -- "${cur#--trace=}")); return ;;
  esac
  case $prev in
  --dir | --file)
    # KEY=PATH: complete the path after the =.
    if [[ $cur == *=* ]]; then
      local key=${cur%%=*}
      local -a paths
      if [ "$prev" = --dir ]; then
        mapfile -t paths < <(compgen -d -- "${cur#*=}")
      else
        mapfile -t paths < <(compgen -f -- "${cur#*=}")
      fi
      COMPREPLY=("${paths[@]/#/$key=}")
    fi
    return ;;
  --fd)
    if [[ $cur == *=* ]]; then
      COMPREPLY=($(compgen -P "${cur%%=*}=" -W "stdin stdout stderr" -- "${cur#*=}"))
    fi
    return ;;
  --set | --set-str) return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "--dir --file --fd --set --set-str --plan --plan=text --plan=json --trace --trace= --trace-output= --trace-format= --trace-failed --trace-time --trace-timestamps --trace-strsize= -T --memory-limit= --cpu-limit= --time-limit= --process-limit= --thread-limit= --fd-limit= --file-size-limit= --disk-limit= --report= --deterministic --deterministic= --root= --cwd= --mount= -q --quiet -v --verbose -h --help -V --version" -- "$cur"))
    return
  fi
  # PROGRAM, then CONFIG: files.
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -o nospace -F _cloudabi_run cloudabi-run
