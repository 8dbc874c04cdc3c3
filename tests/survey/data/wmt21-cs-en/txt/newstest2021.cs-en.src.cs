Novák pomohl Trabzonsporu k druhému místu, trefil se i Škoda
Obránce Filip Novák pomohl gólem v posledním kole turecké fotbalové ligy Trabzonsporu k titulu vicemistra.
Jeho tým zvítězil 2:1 na hřišti Kayserisporu a udržel za sebou třetí Besiktas.
Útočník Milan Škoda dal po lednovém přestupu ze Slavie již desátou branku za Rizespor, který se zachránil, i když podlehl 1:3 na hřišti Fenerbahce.
Novák potvrdil na obránce výbornou produktivitu sedmým gólem v tomto ligovém ročníku.
V 63. minutě gólman Kayserisporu jen vyrazil prudkou střelu a český fotbalista z úhlu napálil míč do sítě.
Domácím se povedlo pět minut před koncem vyrovnat, ale Trabzonspor v šesté minutě nastavení strhl vítězství na svou stranu, když úspěšně zakončil brejk čtyři na jednoho.
Škoda v úvodu druhého poločasu utkání s Fenerbahce vyrovnal po sólu na 1:1.
Rizespor sice nerozhodný stav dlouho neudržel, ale mrzet ho to nemuselo, neboť díky výsledkům soupeřů za sebou zůstal tři body nad sestupovým pásmem.
Soutěž zakončí nedělní duel mistrovského Basaksehiru na hřišti Kasimpasy.
Dobře utajená Jeskyně u poustevníka v lesích u Nového Boru ve skutečnosti nebyla obyvatelná
Na severu Čech v podhůří Lužických hor, nedaleko Nového Boru na Českolipsku, v lesích, kterými vedla Hraběcí cesta, se ukrývá několik pískovcových skalních útvarů.
Přírodních i uměle vytvořených.
A my se vydáme za tím lidskou rukou vytvořeným.
Místu se říká Jeskyně u poustevníka.
Ve skutečnosti tu ale nikdy žádný poustevník nežil a jeskyně sloužila jako úkryt, přesněji úkrytová komora zřejmě na obilí.
Jeskyně je vytesaná z boku do skalní ostrožny a přístupná po schodech shora.
Přitom ale do poslední chvíle prakticky není vidět.
Prozradí ji až úzké schody vedoucí na jakousi skalní galerii, odkud se teprve vstupuje do skály.
I když se zdá, že komora je značně daleko od lidských obydlí, v době vzniku mohlo být na náhorní plošině, kde je dnes les, pole.
