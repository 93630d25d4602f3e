;;; hand-made rules in Festival's format
(set! test_rules '(
(a
 ((n.name is b)
  (((ae1 0.9) (ax0 0.1) ae1))
  ((p.p.name is 0)
   (((ey1 1) ey1))
   (((_epsilon_ 1) _epsilon_)))))
(b
 (((b 1) b)))
(x
 ((p.name is #)
  (((z 1) z))
  (((k-s 1) k-s))))
))
