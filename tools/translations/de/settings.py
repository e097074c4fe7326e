T = {
"'%s' is not an IPv4 address": "„%s“ ist keine IPv4-Adresse",
"'%s' is not a prefix length from 0 to 32": "„%s“ ist keine Präfixlänge von 0 bis 32",
"'%s' is not an IPv4 netmask": "„%s“ ist keine IPv4-Netzmaske",
"unknown value '%s'": "unbekannter Wert „%s“",
"'%s' is not an IPv6 address": "„%s“ ist keine IPv6-Adresse",
"'%s' is not a 20-byte InfiniBand hardware address": "„%s“ ist keine 20 Byte lange InfiniBand-Hardwareadresse",
"'%s' is not an MTU from 0 to 65535": "„%s“ ist keine MTU von 0 bis 65535",
"PKEY=yes needs PHYSDEV (the parent interface)": "PKEY=yes erfordert PHYSDEV (die übergeordnete Schnittstelle)",
"PKEY=yes needs PKEY_ID": "PKEY=yes erfordert PKEY_ID",
"'%s' is not a P_Key from 0x0000 to 0xffff": "„%s“ ist kein P_Key von 0x0000 bis 0xffff",
"'%s' does not match PHYSDEV and the P_Key (NetworkManager names it '%s')":
"„%s“ passt nicht zu PHYSDEV und dem P_Key (NetworkManager nennt sie „%s“)",
"%s: unterminated quote or trailing backslash": "%s: nicht geschlossenes Anführungszeichen oder Backslash am Ende",
"%s: the value is not a plain shell string (unquoted expansion or special character)":
"%s: der Wert ist keine einfache Shell-Zeichenkette (Expansion oder Sonderzeichen ohne Anführungszeichen)",
"TYPE is '%s'; only TYPE=InfiniBand files can be imported":
"TYPE ist „%s“; nur Dateien mit TYPE=InfiniBand können importiert werden",
"'%s' is not a UUID": "„%s“ ist keine UUID",
"not a regular file; ignored": "keine reguläre Datei; ignoriert",
"file owner uid %u is insecure (the owner must be uid %u); ignored":
"Dateibesitzer UID %u ist unsicher (der Besitzer muss UID %u sein); ignoriert",
"insecure permissions %04o (group or others have access; 0600 is required); ignored":
"unsichere Zugriffsrechte %04o (Gruppe oder andere haben Zugriff; 0600 ist erforderlich); ignoriert",
"UUID %s is already used by another file; ignored": "UUID %s wird bereits von einer anderen Datei verwendet; ignoriert",
"no free file name for profile '%s'": "kein freier Dateiname für das Profil „%s“",
"a profile with UUID %s exists already": "ein Profil mit der UUID %s existiert bereits",
"no profile with UUID %s": "kein Profil mit der UUID %s",
"NetworkManager is not running (no system bus: %s)": "NetworkManager läuft nicht (kein Systembus: %s)",
"NetworkManager is not running on the system bus": "NetworkManager läuft nicht auf dem Systembus",
}
