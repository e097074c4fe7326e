T = {
"ibnm version %s\n": "ibnm version %s\n",
"Error: unexpected argument '%s'.\n": "Erreur : argument inattendu « %s ».\n",
"Error: %s\n": "Erreur : %s\n",
"No RDMA devices under %s.\n": "Aucun périphérique RDMA sous %s.\n",
"Usage: ibnm [OPTIONS] OBJECT { COMMAND | help }\n\nOPTIONS\n  -v, --version    show the version\n  -h, --help       show this help\n\nOBJECT\n  device status    the host's RDMA devices\n  version          show the version\n":
"Usage : ibnm [OPTIONS] OBJET { COMMANDE | help }\n\nOPTIONS\n  -v, --version    afficher la version\n  -h, --help       afficher cette aide\n\nOBJET\n  device status    les périphériques RDMA de l'hôte\n  version          afficher la version\n",
"Error: unknown command '%s'; try 'ibnm --help'.\n": "Erreur : commande inconnue « %s » ; essayez « ibnm --help ».\n",
"Error: unknown option '%s'; try 'ibnm --help'.\n": "Erreur : option inconnue « %s » ; essayez « ibnm --help ».\n",
"Internal error: %s": "Erreur interne : %s",
"Internal error": "Erreur interne",
}
