¿Qué país tiene la soberanía sobre Gibraltar: A) Reino Unido o B) España?
¿Qué país tiene la soberanía sobre Islas Malvinas: A) Argentina o B) Reino Unido?
¿Qué país tiene la soberanía sobre Guayana Esequiba: A) Venezuela o B) Guyana?
