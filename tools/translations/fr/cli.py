# The ibnm command line (cli/*.cpp): French translations, merged into po/fr.po by the lead.
T = {
"unknown connection '%s'":
"connexion « %s » inconnue",
"No findings: the profiles fit the host.":
"Aucune constatation : les profils conviennent à l’hôte.",
"cannot open the profile store":
"impossible d’ouvrir le magasin de profils",
"Warning: %s\n":
"Avertissement : %s\n",
"cannot open the host":
"impossible d’ouvrir l’hôte",
"missing command":
"commande manquante",
"argument '%s' not understood":
"argument « %s » non compris",
"Error: %s\n":
"Erreur : %s\n",
"Nothing to do: the host is already as the profiles describe it.":
"Rien à faire : l’hôte est déjà tel que les profils le décrivent.",
"Note: %s\n":
"Remarque : %s\n",
"The steps done before the failure were undone.":
"Les étapes effectuées avant l’échec ont été annulées.",
"the host refused a step":
"l’hôte a refusé une étape",
"Usage: ibnm connection { COMMAND | help }\n\nCOMMAND := { show | add | modify | delete | up | down | reload | import | export }\n\n  show [[id | uuid | filename] ID]\n  add type infiniband|bond|... [con-name NAME] [ifname IFNAME] [PROPERTY VALUE]...\n  modify [id | uuid | filename] ID ([+|-]PROPERTY VALUE)...\n  delete [id | uuid | filename] ID...\n  up [id | uuid | filename] ID\n  down [id | uuid | filename] ID\n  reload\n  import [type keyfile|ifcfg-rh] file PATH\n  export [id | uuid | filename] ID [FILE]\n\nPROPERTY is setting.property (infiniband.p-key, ipv4.addresses, rdma.link-type...)\nor an alias (mtu, mac, p-key, parent, transport-mode, master, slave-type).\nWith --offline, add prints the keyfile and modify edits the keyfile on stdin.\n":
"Utilisation : ibnm connection { COMMANDE | help }\n\nCOMMANDE := { show | add | modify | delete | up | down | reload | import | export }\n\n  show [[id | uuid | filename] ID]\n  add type infiniband|bond|... [con-name NAME] [ifname IFNAME] [PROPRIÉTÉ VALEUR]...\n  modify [id | uuid | filename] ID ([+|-]PROPRIÉTÉ VALEUR)...\n  delete [id | uuid | filename] ID...\n  up [id | uuid | filename] ID\n  down [id | uuid | filename] ID\n  reload\n  import [type keyfile|ifcfg-rh] file CHEMIN\n  export [id | uuid | filename] ID [FICHIER]\n\nPROPRIÉTÉ est paramètre.propriété (infiniband.p-key, ipv4.addresses, rdma.link-type...)\nou un alias (mtu, mac, p-key, parent, transport-mode, master, slave-type).\nAvec --offline, add affiche le keyfile et modify modifie le keyfile lu sur stdin.\n",
"Hint: %s\n":
"Conseil : %s\n",
"profile '%s' is not valid; nothing was written":
"le profil « %s » n’est pas valide ; rien n’a été écrit",
"'type' argument is required":
"l’argument « type » est obligatoire",
"Connection '%s' (%s) successfully added.\n":
"Connexion « %s » (%s) ajoutée avec succès.\n",
"no property to modify":
"aucune propriété à modifier",
"missing connection ID":
"identifiant de connexion manquant",
"Connection '%s' (%s) successfully deleted.\n":
"Connexion « %s » (%s) supprimée avec succès.\n",
"value is missing for '%s'":
"la valeur de « %s » est manquante",
"'file' argument is required":
"l’argument « file » est obligatoire",
"invalid type '%s'; use keyfile or ifcfg-rh":
"type « %s » non valide ; utilisez keyfile ou ifcfg-rh",
"Dry run: nothing was changed.\n":
"Simulation : rien n’a été modifié.\n",
"Connection '%s' successfully activated.\n":
"Connexion « %s » activée avec succès.\n",
"Connection '%s' successfully deactivated.\n":
"Connexion « %s » désactivée avec succès.\n",
"Usage: ibnm device { COMMAND | help }\n\nCOMMAND := { status | show }\n\n  status              IPoIB interfaces, RDMA ports and soft RDMA links\n  show [NAME]         details of an RDMA device or IPoIB interface\n":
"Utilisation : ibnm device { COMMANDE | help }\n\nCOMMANDE := { status | show }\n\n  status              interfaces IPoIB, ports RDMA et liens RDMA logiciels\n  show [NAME]         détails d’un périphérique RDMA ou d’une interface IPoIB\n",
"device '%s' not found":
"périphérique « %s » introuvable",
"Usage: ibnm [OPTIONS] OBJECT { COMMAND | help }\n\nOPTIONS\n  -t, --terse                  terse output (colon separated)\n  -f, --fields FIELD,...|all|common   the fields to show\n  -g, --get-values FIELD,...   the values of the fields, terse\n  -j, --json                   JSON output (docs/json-schema.md)\n  -c, --color auto|yes|no      colour the output (auto: on a terminal)\n      --offline                work on keyfiles on stdin/stdout, touch nothing\n      --keyfile-dir DIR        keep profiles as keyfiles in DIR\n      --simulate HOSTFILE      run on a simulated host (or IBNM_SIMULATE)\n      --dry-run                print the plan of up/down, change nothing\n  -v, --version                show the version\n  -h, --help                   show this help\n\nOBJECT\n  connection   add, modify, show, delete, up, down, reload, import, export\n  device       status, show: IPoIB interfaces and RDMA ports\n  rdma         link, gid, roce-mode, memlock\n  check        check profiles against the host\n  udev-rules   persistent IPoIB interface names\n  version      show the version\n":
"Utilisation : ibnm [OPTIONS] OBJET { COMMANDE | help }\n\nOPTIONS\n  -t, --terse                  sortie concise (séparée par des deux-points)\n  -f, --fields FIELD,...|all|common   les champs à afficher\n  -g, --get-values FIELD,...   les valeurs des champs, concises\n  -j, --json                   sortie JSON (docs/json-schema.md)\n  -c, --color auto|yes|no      colorer la sortie (auto : sur un terminal)\n      --offline                travailler sur des keyfiles via stdin/stdout, ne rien toucher\n      --keyfile-dir DIR        garder les profils en keyfiles dans DIR\n      --simulate HOSTFILE      travailler sur un hôte simulé (ou IBNM_SIMULATE)\n      --dry-run                afficher le plan de up/down, ne rien changer\n  -v, --version                afficher la version\n  -h, --help                   afficher cette aide\n\nOBJET\n  connection   add, modify, show, delete, up, down, reload, import, export\n  device       status, show : interfaces IPoIB et ports RDMA\n  rdma         link, gid, roce-mode, memlock\n  check        vérifier les profils par rapport à l’hôte\n  udev-rules   noms persistants des interfaces IPoIB\n  version      afficher la version\n",
"ibnm version %s\n":
"ibnm version %s\n",
"option '%s' requires an argument":
"l’option « %s » nécessite un argument",
"invalid value '%s' for '%s'; use auto, yes or no":
"valeur « %s » non valide pour « %s » ; utilisez auto, yes ou no",
"unknown option '%s'":
"option « %s » inconnue",
"missing object":
"objet manquant",
"object '%s' unknown":
"objet « %s » inconnu",
"invalid field '%s'; allowed fields: %s":
"champ « %s » non valide ; champs autorisés : %s",
"invalid field '%s'":
"champ « %s » non valide",
"Usage: ibnm rdma { COMMAND | help }\n\nCOMMAND := { link | gid | roce-mode | memlock }\n\n  link show\n  link add NAME type rxe|siw netdev NETDEV\n  link delete NAME\n  gid show [DEVICE]\n  roce-mode DEVICE [PORT] [v1|v2]\n  memlock [write]\n":
"Utilisation : ibnm rdma { COMMANDE | help }\n\nCOMMANDE := { link | gid | roce-mode | memlock }\n\n  link show\n  link add NAME type rxe|siw netdev NETDEV\n  link delete NAME\n  gid show [PÉRIPHÉRIQUE]\n  roce-mode PÉRIPHÉRIQUE [PORT] [v1|v2]\n  memlock [write]\n",
"missing link name":
"nom du lien manquant",
"invalid link type '%s'; use rxe or siw":
"type de lien « %s » non valide ; utilisez rxe ou siw",
"'netdev' argument is required":
"l’argument « netdev » est obligatoire",
"RDMA link '%s' not found":
"lien RDMA « %s » introuvable",
"missing device name":
"nom du périphérique manquant",
"invalid RoCE mode '%s'; use v1 or v2":
"mode RoCE « %s » non valide ; utilisez v1 ou v2",
"device '%s' has no port %u":
"le périphérique « %s » n’a pas de port %u",
"port %s/%u has no network interface to set the RoCE mode through":
"le port %s/%u n’a pas d’interface réseau par laquelle régler le mode RoCE",
"RLIMIT_MEMLOCK of this shell: soft %s, hard %s.\n":
"RLIMIT_MEMLOCK de ce shell : souple %s, stricte %s.\n",
"libibverbs warns at 32 KiB or less: RDMA applications cannot pin memory.":
"libibverbs avertit à 32 Kio ou moins : les applications RDMA ne peuvent pas verrouiller de mémoire.",
"The policy for group rdma ('ibnm rdma memlock write' writes what is planned):":
"La politique du groupe rdma (« ibnm rdma memlock write » écrit ce qui est prévu) :",
"argument '%s' not understood; use 'ibnm udev-rules [write]'":
"argument « %s » non compris ; utilisez « ibnm udev-rules [write] »",
}
