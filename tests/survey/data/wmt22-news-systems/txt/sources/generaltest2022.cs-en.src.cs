Blíží se velký návrat českého smolaře.
Pavel Francouz byl povolán do NHL
Český hokejový brankář Pavel Francouz, který si v posledních měsících prochází těžkým obdobím své kariéry, se vrací zpátky do NHL.
Jednatřicetiletý plzeňský rodák bude na střídačce a brzy by se tak mohl dostat i do branky.
Bývalý brankář Litvínova, Plzně či ruského Čeljabinsku se zranil v přípravě na NHL v říjnu letošního roku.
Přesně v polovině utkání s Vegas střídal a od této doby se na kluzištích NHL dosud nepředstavil.
K incidentu došlo v momentě, kdy se zkušený brankář přesouval od jedné tyčky ke druhé.
„Pavel Francouz bude mimo přibližně tři až čtyři týdny se zraněním ve spodní části těla,“ oznámil celek z Denveru na začátku října.
Jeho návrat do branky v NHL se nakonec prodloužil na více jak dva měsíce.
V neděli dopoledne amerického času byl povolán z farmy, kde odchytal čtyři duely a ukázal svou starou formu.
V AHL si totiž připsal 94,5 % zákroků.
Odchovanec plzeňského hokeje se chce konečně prosadit a potvrdit, že do nejlepší ligy světa patří.
V posledním ročníku měl problémy s kyčlemi a ve zkráceném pandemickém ročníku neodchytal jediné utkání.
V NHL „Francík“ odchytal 36 utkání, jeho úspěšnost zákroků je na čísle 92,3 %.
Charles na vánočním přání nasazuje Camille roušku, William a Kate pózují v Jordánsku
Britský princ William a jeho manželka Kate jako letošní vánoční přání vybrali rodinnou fotografii pořízenou během cesty do Jordánska.
Své přání zveřejnil také princ Charles, který použil fotografii, na níž své choti Camille na dostizích pomáhá nasadit roušku.
Na svých internetových stránkách o tom informovala britská zpravodajská stanice BBC.
Přání posílají přátelům, spolupracovníkům a nadacím, se kterými spolupracují.
Fotografie vznikla kdesi v pouštní krajině.
Vévodkyně z Cambridge je oblečená v dlouhých letních šatech v khaki barvě a šaty má i princezna Charlotte.
Princ William, vévoda z Cambridge, má na sobě stejně jako princové George a Louis šortky a tričko s límečkem.
Kdo fotografii pořídil, William a Kate neuvedli, není ani jasné, kdy přesně vznikla.
Loni královská rodina pro fotografii určenou jako vánoční přání pózovala na balíku slámy před hromadou dřeva ve svém venkovském sídle v hrabství Norfolk.
Snímek, který poslouží jako vánoční přání, zveřejnili také následník trůnu princ Charles s manželkou Camillou.
Fotograf Sam Hussein je zachytil v červnu na dostizích v Ascotu.
Charles, který má na hlavě cylindr a na obličeji roušku, pomáhá Camille nasadit její roušku barevně sladěnou se světlými šaty.
Slavia podle efotbal.cz slíbila Berbrovi milion za titul, Tvrdík to popřel.
Praha – Kriminalisté v současné korupční kauze údajně pracovali s tím, že obviněný bývalý místopředseda Fotbalové asociace ČR Roman Berbr měl mít od pražské Slavie slíbený milion korun za ligový titul v sezoně 2018/19.
Informoval o tom server efotbal.cz s tím, že se dostal k části policejních spisů.
