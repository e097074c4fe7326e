T = {
"ibnm version %s\n": "ibnm Version %s\n",
"Error: unexpected argument '%s'.\n": "Fehler: unerwartetes Argument „%s“.\n",
"Error: %s\n": "Fehler: %s\n",
"No RDMA devices under %s.\n": "Keine RDMA-Geräte unter %s.\n",
"Usage: ibnm [OPTIONS] OBJECT { COMMAND | help }\n\nOPTIONS\n  -v, --version    show the version\n  -h, --help       show this help\n\nOBJECT\n  device status    the host's RDMA devices\n  version          show the version\n":
"Aufruf: ibnm [OPTIONEN] OBJEKT { BEFEHL | help }\n\nOPTIONEN\n  -v, --version    die Version anzeigen\n  -h, --help       diese Hilfe anzeigen\n\nOBJEKT\n  device status    die RDMA-Geräte des Rechners\n  version          die Version anzeigen\n",
"Error: unknown command '%s'; try 'ibnm --help'.\n": "Fehler: unbekannter Befehl „%s“; siehe „ibnm --help“.\n",
"Error: unknown option '%s'; try 'ibnm --help'.\n": "Fehler: unbekannte Option „%s“; siehe „ibnm --help“.\n",
"Internal error: %s": "Interner Fehler: %s",
"Internal error": "Interner Fehler",
}
