T = {
"'%s' is not an IPv4 address": "« %s » n’est pas une adresse IPv4",
"'%s' is not a prefix length from 0 to 32": "« %s » n’est pas une longueur de préfixe de 0 à 32",
"'%s' is not an IPv4 netmask": "« %s » n’est pas un masque de réseau IPv4",
"unknown value '%s'": "valeur inconnue « %s »",
"'%s' is not an IPv6 address": "« %s » n’est pas une adresse IPv6",
"'%s' is not a 20-byte InfiniBand hardware address": "« %s » n’est pas une adresse matérielle InfiniBand de 20 octets",
"'%s' is not an MTU from 0 to 65535": "« %s » n’est pas une MTU de 0 à 65535",
"PKEY=yes needs PHYSDEV (the parent interface)": "PKEY=yes nécessite PHYSDEV (l’interface parente)",
"PKEY=yes needs PKEY_ID": "PKEY=yes nécessite PKEY_ID",
"'%s' is not a P_Key from 0x0000 to 0xffff": "« %s » n’est pas une P_Key de 0x0000 à 0xffff",
"'%s' does not match PHYSDEV and the P_Key (NetworkManager names it '%s')":
"« %s » ne correspond pas à PHYSDEV et à la P_Key (NetworkManager la nomme « %s »)",
"%s: unterminated quote or trailing backslash": "%s : guillemet non fermé ou barre oblique inverse finale",
"%s: the value is not a plain shell string (unquoted expansion or special character)":
"%s : la valeur n’est pas une simple chaîne shell (expansion ou caractère spécial hors guillemets)",
"TYPE is '%s'; only TYPE=InfiniBand files can be imported":
"TYPE vaut « %s » ; seuls les fichiers TYPE=InfiniBand peuvent être importés",
"'%s' is not a UUID": "« %s » n’est pas un UUID",
"not a regular file; ignored": "pas un fichier ordinaire ; ignoré",
"file owner uid %u is insecure (the owner must be uid %u); ignored":
"le propriétaire uid %u du fichier n’est pas sûr (le propriétaire doit être l’uid %u) ; ignoré",
"insecure permissions %04o (group or others have access; 0600 is required); ignored":
"permissions non sûres %04o (le groupe ou les autres y ont accès ; 0600 est requis) ; ignoré",
"UUID %s is already used by another file; ignored": "l’UUID %s est déjà utilisé par un autre fichier ; ignoré",
"no free file name for profile '%s'": "aucun nom de fichier libre pour le profil « %s »",
"a profile with UUID %s exists already": "un profil avec l’UUID %s existe déjà",
"no profile with UUID %s": "aucun profil avec l’UUID %s",
"NetworkManager is not running (no system bus: %s)": "NetworkManager ne fonctionne pas (pas de bus système : %s)",
"NetworkManager is not running on the system bus": "NetworkManager ne fonctionne pas sur le bus système",
}
