(set! cmu_lts_rules '(
(q (((k 1) k)))
(x
 ((p.name is #)
  (((z 1) z))
  (((k-s 0.9) (g-z 0.1) k-s))))
))
