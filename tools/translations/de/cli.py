# The ibnm command line (cli/*.cpp): German translations, merged into po/de.po by the lead.
T = {
"unknown connection '%s'":
"unbekannte Verbindung „%s“",
"No findings: the profiles fit the host.":
"Keine Befunde: die Profile passen zum Rechner.",
"cannot open the profile store":
"der Profilspeicher kann nicht geöffnet werden",
"Warning: %s\n":
"Warnung: %s\n",
"cannot open the host":
"der Rechner kann nicht geöffnet werden",
"missing command":
"Befehl fehlt",
"argument '%s' not understood":
"Argument „%s“ nicht verstanden",
"Error: %s\n":
"Fehler: %s\n",
"Nothing to do: the host is already as the profiles describe it.":
"Nichts zu tun: der Rechner ist bereits so, wie die Profile ihn beschreiben.",
"Note: %s\n":
"Hinweis: %s\n",
"The steps done before the failure were undone.":
"Die vor dem Fehler ausgeführten Schritte wurden rückgängig gemacht.",
"the host refused a step":
"der Rechner hat einen Schritt abgelehnt",
"Usage: ibnm connection { COMMAND | help }\n\nCOMMAND := { show | add | modify | delete | up | down | reload | import | export }\n\n  show [[id | uuid | filename] ID]\n  add type infiniband|bond|... [con-name NAME] [ifname IFNAME] [PROPERTY VALUE]...\n  modify [id | uuid | filename] ID ([+|-]PROPERTY VALUE)...\n  delete [id | uuid | filename] ID...\n  up [id | uuid | filename] ID\n  down [id | uuid | filename] ID\n  reload\n  import [type keyfile|ifcfg-rh] file PATH\n  export [id | uuid | filename] ID [FILE]\n\nPROPERTY is setting.property (infiniband.p-key, ipv4.addresses, rdma.link-type...)\nor an alias (mtu, mac, p-key, parent, transport-mode, master, slave-type).\nWith --offline, add prints the keyfile and modify edits the keyfile on stdin.\n":
"Aufruf: ibnm connection { BEFEHL | help }\n\nBEFEHL := { show | add | modify | delete | up | down | reload | import | export }\n\n  show [[id | uuid | filename] ID]\n  add type infiniband|bond|... [con-name NAME] [ifname IFNAME] [EIGENSCHAFT WERT]...\n  modify [id | uuid | filename] ID ([+|-]EIGENSCHAFT WERT)...\n  delete [id | uuid | filename] ID...\n  up [id | uuid | filename] ID\n  down [id | uuid | filename] ID\n  reload\n  import [type keyfile|ifcfg-rh] file PFAD\n  export [id | uuid | filename] ID [DATEI]\n\nEIGENSCHAFT ist einstellung.eigenschaft (infiniband.p-key, ipv4.addresses, rdma.link-type...)\noder ein Alias (mtu, mac, p-key, parent, transport-mode, master, slave-type).\nMit --offline gibt add die Schlüsseldatei aus und modify ändert die Schlüsseldatei auf stdin.\n",
"Hint: %s\n":
"Tipp: %s\n",
"profile '%s' is not valid; nothing was written":
"Profil „%s“ ist ungültig; nichts wurde geschrieben",
"'type' argument is required":
"Argument „type“ ist erforderlich",
"Connection '%s' (%s) successfully added.\n":
"Verbindung „%s“ (%s) erfolgreich hinzugefügt.\n",
"no property to modify":
"keine Eigenschaft zum Ändern angegeben",
"missing connection ID":
"Verbindungskennung fehlt",
"Connection '%s' (%s) successfully deleted.\n":
"Verbindung „%s“ (%s) erfolgreich gelöscht.\n",
"value is missing for '%s'":
"Wert für „%s“ fehlt",
"'file' argument is required":
"Argument „file“ ist erforderlich",
"invalid type '%s'; use keyfile or ifcfg-rh":
"ungültiger Typ „%s“; keyfile oder ifcfg-rh verwenden",
"Dry run: nothing was changed.\n":
"Probelauf: nichts wurde geändert.\n",
"Connection '%s' successfully activated.\n":
"Verbindung „%s“ erfolgreich aktiviert.\n",
"Connection '%s' successfully deactivated.\n":
"Verbindung „%s“ erfolgreich deaktiviert.\n",
"Usage: ibnm device { COMMAND | help }\n\nCOMMAND := { status | show }\n\n  status              IPoIB interfaces, RDMA ports and soft RDMA links\n  show [NAME]         details of an RDMA device or IPoIB interface\n":
"Aufruf: ibnm device { BEFEHL | help }\n\nBEFEHL := { status | show }\n\n  status              IPoIB-Schnittstellen, RDMA-Ports und Soft-RDMA-Links\n  show [NAME]         Einzelheiten eines RDMA-Geräts oder einer IPoIB-Schnittstelle\n",
"device '%s' not found":
"Gerät „%s“ nicht gefunden",
"Usage: ibnm [OPTIONS] OBJECT { COMMAND | help }\n\nOPTIONS\n  -t, --terse                  terse output (colon separated)\n  -f, --fields FIELD,...|all|common   the fields to show\n  -g, --get-values FIELD,...   the values of the fields, terse\n  -j, --json                   JSON output (docs/json-schema.md)\n  -c, --color auto|yes|no      colour the output (auto: on a terminal)\n      --offline                work on keyfiles on stdin/stdout, touch nothing\n      --keyfile-dir DIR        keep profiles as keyfiles in DIR\n      --simulate HOSTFILE      run on a simulated host (or IBNM_SIMULATE)\n      --dry-run                print the plan of up/down, change nothing\n  -v, --version                show the version\n  -h, --help                   show this help\n\nOBJECT\n  connection   add, modify, show, delete, up, down, reload, import, export\n  device       status, show: IPoIB interfaces and RDMA ports\n  rdma         link, gid, roce-mode, memlock\n  check        check profiles against the host\n  udev-rules   persistent IPoIB interface names\n  version      show the version\n":
"Aufruf: ibnm [OPTIONEN] OBJEKT { BEFEHL | help }\n\nOPTIONEN\n  -t, --terse                  knappe Ausgabe (durch Doppelpunkte getrennt)\n  -f, --fields FIELD,...|all|common   die anzuzeigenden Felder\n  -g, --get-values FIELD,...   die Werte der Felder, knapp\n  -j, --json                   JSON-Ausgabe (docs/json-schema.md)\n  -c, --color auto|yes|no      Ausgabe einfärben (auto: auf einem Terminal)\n      --offline                Schlüsseldateien auf stdin/stdout bearbeiten, nichts anfassen\n      --keyfile-dir DIR        Profile als Schlüsseldateien in DIR ablegen\n      --simulate HOSTFILE      auf einem simulierten Rechner arbeiten (oder IBNM_SIMULATE)\n      --dry-run                den Plan von up/down ausgeben, nichts ändern\n  -v, --version                die Version anzeigen\n  -h, --help                   diese Hilfe anzeigen\n\nOBJEKT\n  connection   add, modify, show, delete, up, down, reload, import, export\n  device       status, show: IPoIB-Schnittstellen und RDMA-Ports\n  rdma         link, gid, roce-mode, memlock\n  check        Profile gegen den Rechner prüfen\n  udev-rules   dauerhafte Namen für IPoIB-Schnittstellen\n  version      die Version anzeigen\n",
"ibnm version %s\n":
"ibnm Version %s\n",
"option '%s' requires an argument":
"Option „%s“ erfordert ein Argument",
"invalid value '%s' for '%s'; use auto, yes or no":
"ungültiger Wert „%s“ für „%s“; auto, yes oder no verwenden",
"unknown option '%s'":
"unbekannte Option „%s“",
"missing object":
"Objekt fehlt",
"object '%s' unknown":
"Objekt „%s“ unbekannt",
"invalid field '%s'; allowed fields: %s":
"ungültiges Feld „%s“; erlaubte Felder: %s",
"invalid field '%s'":
"ungültiges Feld „%s“",
"Usage: ibnm rdma { COMMAND | help }\n\nCOMMAND := { link | gid | roce-mode | memlock }\n\n  link show\n  link add NAME type rxe|siw netdev NETDEV\n  link delete NAME\n  gid show [DEVICE]\n  roce-mode DEVICE [PORT] [v1|v2]\n  memlock [write]\n":
"Aufruf: ibnm rdma { BEFEHL | help }\n\nBEFEHL := { link | gid | roce-mode | memlock }\n\n  link show\n  link add NAME type rxe|siw netdev NETDEV\n  link delete NAME\n  gid show [GERÄT]\n  roce-mode GERÄT [PORT] [v1|v2]\n  memlock [write]\n",
"missing link name":
"Name des Links fehlt",
"invalid link type '%s'; use rxe or siw":
"ungültiger Link-Typ „%s“; rxe oder siw verwenden",
"'netdev' argument is required":
"Argument „netdev“ ist erforderlich",
"RDMA link '%s' not found":
"RDMA-Link „%s“ nicht gefunden",
"missing device name":
"Gerätename fehlt",
"invalid RoCE mode '%s'; use v1 or v2":
"ungültiger RoCE-Modus „%s“; v1 oder v2 verwenden",
"device '%s' has no port %u":
"Gerät „%s“ hat keinen Port %u",
"port %s/%u has no network interface to set the RoCE mode through":
"Port %s/%u hat keine Netzwerkschnittstelle, über die der RoCE-Modus gesetzt werden kann",
"RLIMIT_MEMLOCK of this shell: soft %s, hard %s.\n":
"RLIMIT_MEMLOCK dieser Shell: weich %s, hart %s.\n",
"libibverbs warns at 32 KiB or less: RDMA applications cannot pin memory.":
"libibverbs warnt bei 32 KiB oder weniger: RDMA-Anwendungen können keinen Speicher festsetzen.",
"The policy for group rdma ('ibnm rdma memlock write' writes what is planned):":
"Die Richtlinie für die Gruppe rdma („ibnm rdma memlock write“ schreibt, was geplant ist):",
"argument '%s' not understood; use 'ibnm udev-rules [write]'":
"Argument „%s“ nicht verstanden; „ibnm udev-rules [write]“ verwenden",
}
