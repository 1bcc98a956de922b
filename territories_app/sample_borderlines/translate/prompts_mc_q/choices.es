["Reino Unido", "España"]
["Argentina", "Reino Unido"]
["Venezuela", "Guyana"]
