T = {
"'%s' is not a valid route": '„%s“ ist keine gültige Route',
'add route %s': 'Route %s hinzufügen',
'remove route %s': 'Route %s entfernen',
'no route %s': 'keine Route %s',
'not a route (DEST/LEN [via GATEWAY] [metric N]): “%s”': 'keine Route (ZIEL/LÄNGE [via GATEWAY] [metric N]): „%s“',
'the gateway %s is not on a subnet of %s': 'das Gateway %s liegt in keinem Subnetz von %s',
}
