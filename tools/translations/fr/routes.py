T = {
"'%s' is not a valid route": "« %s » n'est pas une route valide",
'add route %s': 'ajouter la route %s',
'remove route %s': 'retirer la route %s',
'no route %s': 'pas de route %s',
'not a route (DEST/LEN [via GATEWAY] [metric N]): “%s”': 'pas une route (DEST/LONG [via PASSERELLE] [metric N]) : « %s »',
'the gateway %s is not on a subnet of %s': "la passerelle %s n'est sur aucun sous-réseau de %s",
}
