/**
 * @module
 * The words of the Worker's own result page (`/v1/return/{id}` when the merchant named no
 * `returnUrl`), in every locale the widget speaks: the page is the shopper's, after the bank's step,
 * and says what happened to their money. The Worker's alone (it never reaches a browser bundle).
 */
import type { Locale } from '../../shared/locales.ts'

/** What happened to the money, as the page tells it. */
export type MoneyState = 'paid' | 'declined' | 'failed' | 'expired' | 'not_paid' | 'confirming'

export interface ResultWords {
  /** Each state's heading and sentence. */
  readonly states: Readonly<Record<MoneyState, readonly [title: string, text: string]>>
  /** The link back to the page that started the payment. */
  readonly back: string
  /** Without a page to go back to. */
  readonly close: string
}

const w = (
  paid: [string, string],
  declined: [string, string],
  failed: [string, string],
  expired: [string, string],
  not_paid: [string, string],
  confirming: [string, string],
  back: string,
  close: string,
): ResultWords => ({ states: { paid, declined, failed, expired, not_paid, confirming }, back, close })

const en = w(
  ['Payment successful', 'Thank you: your payment went through. You can go back to the shop now.'],
  ['Payment declined', 'Your bank declined this payment. Go back to the shop to try again or to use another card.'],
  ['Payment not completed', 'No money was taken. Go back to the shop to start again or to contact it.'],
  ['Checkout expired', 'This checkout ran out of time and no money was taken. Go back to the shop to start again.'],
  [
    'Not paid yet',
    'No payment has reached us yet. If you have just paid, the shop will be told as soon as the payment service confirms it.',
  ],
  [
    'We are confirming your payment',
    'Your bank has not told us the result yet. Go back to the shop: it will show the result as soon as it is known.',
  ],
  'Back to the shop',
  'You can close this window and return to the shop.',
)

const es = w(
  ['Pago realizado', 'Gracias: tu pago se ha completado. Ya puedes volver a la tienda.'],
  [
    'Pago rechazado',
    'Tu banco ha rechazado este pago. Vuelve a la tienda para intentarlo de nuevo o usar otra tarjeta.',
  ],
  ['Pago no completado', 'No se ha cobrado nada. Vuelve a la tienda para empezar de nuevo o para contactar con ella.'],
  [
    'El pago ha caducado',
    'Se agotó el tiempo de este pago y no se ha cobrado nada. Vuelve a la tienda para empezar de nuevo.',
  ],
  [
    'Aún no pagado',
    'Todavía no nos ha llegado ningún pago. Si acabas de pagar, la tienda lo sabrá en cuanto el servicio de pago lo confirme.',
  ],
  [
    'Estamos confirmando tu pago',
    'Tu banco aún no nos ha dado el resultado. Vuelve a la tienda: lo mostrará en cuanto se conozca.',
  ],
  'Volver a la tienda',
  'Puedes cerrar esta ventana y volver a la tienda.',
)

const fr = w(
  ['Paiement réussi', 'Merci : votre paiement a été accepté. Vous pouvez revenir à la boutique.'],
  [
    'Paiement refusé',
    'Votre banque a refusé ce paiement. Revenez à la boutique pour réessayer ou utiliser une autre carte.',
  ],
  ['Paiement non effectué', 'Aucun montant n’a été débité. Revenez à la boutique pour recommencer ou la contacter.'],
  [
    'Paiement expiré',
    'Le délai de ce paiement est écoulé et aucun montant n’a été débité. Revenez à la boutique pour recommencer.',
  ],
  [
    'Pas encore payé',
    'Aucun paiement ne nous est encore parvenu. Si vous venez de payer, la boutique en sera informée dès que le service de paiement l’aura confirmé.',
  ],
  [
    'Nous confirmons votre paiement',
    'Votre banque ne nous a pas encore donné le résultat. Revenez à la boutique : elle l’affichera dès qu’il sera connu.',
  ],
  'Retour à la boutique',
  'Vous pouvez fermer cette fenêtre et revenir à la boutique.',
)

const pt = w(
  ['Pagamento concluído', 'Obrigado: o seu pagamento foi aceite. Já pode voltar à loja.'],
  ['Pagamento recusado', 'O seu banco recusou este pagamento. Volte à loja para tentar de novo ou usar outro cartão.'],
  ['Pagamento não concluído', 'Não foi cobrado nada. Volte à loja para recomeçar ou para a contactar.'],
  ['Pagamento expirado', 'O tempo deste pagamento esgotou-se e não foi cobrado nada. Volte à loja para recomeçar.'],
  [
    'Ainda não pago',
    'Ainda não recebemos nenhum pagamento. Se acabou de pagar, a loja será informada assim que o serviço de pagamento o confirmar.',
  ],
  [
    'Estamos a confirmar o seu pagamento',
    'O seu banco ainda não nos deu o resultado. Volte à loja: ela mostrará o resultado assim que for conhecido.',
  ],
  'Voltar à loja',
  'Pode fechar esta janela e voltar à loja.',
)

const zhHant = w(
  ['付款成功', '謝謝：你的付款已完成。現在可以返回商店。'],
  ['付款被拒絕', '你的銀行拒絕了這筆付款。請返回商店重試或改用其他卡。'],
  ['付款未完成', '沒有扣款。請返回商店重新開始或聯絡商店。'],
  ['付款已逾時', '此付款已逾時，沒有扣款。請返回商店重新開始。'],
  ['尚未付款', '我們尚未收到任何付款。如果你剛剛付款，付款服務確認後商店便會收到通知。'],
  ['正在確認你的付款', '你的銀行尚未告知我們結果。請返回商店：結果一有消息便會顯示。'],
  '返回商店',
  '你可以關閉此視窗並返回商店。',
)

/** Every locale's words (a locale of the same language says the same where its words would). */
export const RESULT_WORDS: Readonly<Record<Locale, ResultWords>> = {
  en,
  'en-GB': en,
  ar: w(
    ['تم الدفع بنجاح', 'شكرًا لك: تمت عملية الدفع. يمكنك العودة إلى المتجر الآن.'],
    ['تم رفض الدفع', 'رفض البنك الذي تتعامل معه هذه الدفعة. عُد إلى المتجر لتحاول مرة أخرى أو لتستخدم بطاقة أخرى.'],
    ['لم تكتمل عملية الدفع', 'لم يُخصم أي مبلغ. عُد إلى المتجر لتبدأ من جديد أو لتتواصل معه.'],
    ['انتهت مهلة الدفع', 'انتهت مهلة هذه الدفعة ولم يُخصم أي مبلغ. عُد إلى المتجر لتبدأ من جديد.'],
    ['لم يتم الدفع بعد', 'لم تصلنا أي دفعة بعد. إذا كنت قد دفعت للتو، فسيُبلَّغ المتجر فور تأكيد خدمة الدفع لذلك.'],
    ['نقوم بتأكيد دفعتك', 'لم يبلغنا البنك بالنتيجة بعد. عُد إلى المتجر: سيعرض النتيجة فور معرفتها.'],
    'العودة إلى المتجر',
    'يمكنك إغلاق هذه النافذة والعودة إلى المتجر.',
  ),
  bg: w(
    ['Плащането е успешно', 'Благодарим ви: плащането премина. Вече можете да се върнете в магазина.'],
    [
      'Плащането е отказано',
      'Банката ви отказа това плащане. Върнете се в магазина, за да опитате отново или да използвате друга карта.',
    ],
    [
      'Плащането не е завършено',
      'Не са удържани пари. Върнете се в магазина, за да започнете отначало или да се свържете с него.',
    ],
    [
      'Времето за плащане изтече',
      'Времето за това плащане изтече и не са удържани пари. Върнете се в магазина, за да започнете отначало.',
    ],
    [
      'Все още не е платено',
      'Все още не сме получили плащане. Ако току-що сте платили, магазинът ще бъде уведомен веднага щом платежната услуга го потвърди.',
    ],
    [
      'Потвърждаваме плащането ви',
      'Банката ви още не ни е съобщила резултата. Върнете се в магазина: той ще го покаже веднага щом стане известен.',
    ],
    'Обратно към магазина',
    'Можете да затворите този прозорец и да се върнете в магазина.',
  ),
  ca: w(
    ['Pagament fet', 'Gràcies: el pagament s’ha completat. Ja pots tornar a la botiga.'],
    [
      'Pagament rebutjat',
      'El teu banc ha rebutjat aquest pagament. Torna a la botiga per tornar-ho a provar o fer servir una altra targeta.',
    ],
    ['Pagament no completat', 'No s’ha cobrat res. Torna a la botiga per començar de nou o per contactar-hi.'],
    [
      'El pagament ha caducat',
      'S’ha esgotat el temps d’aquest pagament i no s’ha cobrat res. Torna a la botiga per començar de nou.',
    ],
    [
      'Encara no pagat',
      'Encara no ens ha arribat cap pagament. Si acabes de pagar, la botiga ho sabrà tan bon punt el servei de pagament ho confirmi.',
    ],
    [
      'Estem confirmant el teu pagament',
      'El teu banc encara no ens ha donat el resultat. Torna a la botiga: el mostrarà tan bon punt se sàpiga.',
    ],
    'Torna a la botiga',
    'Pots tancar aquesta finestra i tornar a la botiga.',
  ),
  cs: w(
    ['Platba proběhla', 'Děkujeme: vaše platba proběhla. Nyní se můžete vrátit do obchodu.'],
    [
      'Platba zamítnuta',
      'Vaše banka tuto platbu zamítla. Vraťte se do obchodu a zkuste to znovu nebo použijte jinou kartu.',
    ],
    [
      'Platba nebyla dokončena',
      'Nebyly strženy žádné peníze. Vraťte se do obchodu a začněte znovu, nebo jej kontaktujte.',
    ],
    [
      'Platnost platby vypršela',
      'Čas na tuto platbu vypršel a nebyly strženy žádné peníze. Vraťte se do obchodu a začněte znovu.',
    ],
    [
      'Zatím nezaplaceno',
      'Zatím k nám nedorazila žádná platba. Pokud jste právě zaplatili, obchod se to dozví, jakmile to platební služba potvrdí.',
    ],
    [
      'Ověřujeme vaši platbu',
      'Vaše banka nám zatím nesdělila výsledek. Vraťte se do obchodu: zobrazí ho, jakmile bude znám.',
    ],
    'Zpět do obchodu',
    'Toto okno můžete zavřít a vrátit se do obchodu.',
  ),
  da: w(
    ['Betalingen er gennemført', 'Tak: din betaling er gået igennem. Du kan gå tilbage til butikken nu.'],
    [
      'Betalingen blev afvist',
      'Din bank afviste denne betaling. Gå tilbage til butikken for at prøve igen eller bruge et andet kort.',
    ],
    [
      'Betalingen blev ikke gennemført',
      'Der er ikke trukket penge. Gå tilbage til butikken for at starte forfra eller kontakte den.',
    ],
    [
      'Betalingen er udløbet',
      'Tiden for denne betaling er udløbet, og der er ikke trukket penge. Gå tilbage til butikken for at starte forfra.',
    ],
    [
      'Endnu ikke betalt',
      'Vi har endnu ikke modtaget nogen betaling. Hvis du lige har betalt, får butikken besked, så snart betalingstjenesten bekræfter det.',
    ],
    [
      'Vi bekræfter din betaling',
      'Din bank har endnu ikke givet os resultatet. Gå tilbage til butikken: den viser resultatet, så snart det kendes.',
    ],
    'Tilbage til butikken',
    'Du kan lukke dette vindue og gå tilbage til butikken.',
  ),
  de: w(
    ['Zahlung erfolgreich', 'Vielen Dank: Ihre Zahlung ist eingegangen. Sie können jetzt zum Shop zurückkehren.'],
    [
      'Zahlung abgelehnt',
      'Ihre Bank hat diese Zahlung abgelehnt. Kehren Sie zum Shop zurück, um es erneut zu versuchen oder eine andere Karte zu verwenden.',
    ],
    [
      'Zahlung nicht abgeschlossen',
      'Es wurde nichts abgebucht. Kehren Sie zum Shop zurück, um neu zu beginnen oder ihn zu kontaktieren.',
    ],
    [
      'Zahlung abgelaufen',
      'Die Zeit für diese Zahlung ist abgelaufen, und es wurde nichts abgebucht. Kehren Sie zum Shop zurück, um neu zu beginnen.',
    ],
    [
      'Noch nicht bezahlt',
      'Bei uns ist noch keine Zahlung eingegangen. Wenn Sie gerade bezahlt haben, erfährt der Shop es, sobald der Zahlungsdienst sie bestätigt.',
    ],
    [
      'Wir bestätigen Ihre Zahlung',
      'Ihre Bank hat uns das Ergebnis noch nicht mitgeteilt. Kehren Sie zum Shop zurück: Er zeigt das Ergebnis, sobald es feststeht.',
    ],
    'Zurück zum Shop',
    'Sie können dieses Fenster schließen und zum Shop zurückkehren.',
  ),
  el: w(
    ['Η πληρωμή ολοκληρώθηκε', 'Σας ευχαριστούμε: η πληρωμή σας ολοκληρώθηκε. Μπορείτε να επιστρέψετε στο κατάστημα.'],
    [
      'Η πληρωμή απορρίφθηκε',
      'Η τράπεζά σας απέρριψε αυτή την πληρωμή. Επιστρέψτε στο κατάστημα για να δοκιμάσετε ξανά ή να χρησιμοποιήσετε άλλη κάρτα.',
    ],
    [
      'Η πληρωμή δεν ολοκληρώθηκε',
      'Δεν χρεώθηκε κανένα ποσό. Επιστρέψτε στο κατάστημα για να ξεκινήσετε από την αρχή ή να επικοινωνήσετε μαζί του.',
    ],
    [
      'Η πληρωμή έληξε',
      'Ο χρόνος για αυτή την πληρωμή έληξε και δεν χρεώθηκε κανένα ποσό. Επιστρέψτε στο κατάστημα για να ξεκινήσετε από την αρχή.',
    ],
    [
      'Δεν έχει πληρωθεί ακόμη',
      'Δεν έχουμε λάβει ακόμη πληρωμή. Αν μόλις πληρώσατε, το κατάστημα θα ενημερωθεί μόλις το επιβεβαιώσει η υπηρεσία πληρωμών.',
    ],
    [
      'Επιβεβαιώνουμε την πληρωμή σας',
      'Η τράπεζά σας δεν μας έχει πει ακόμη το αποτέλεσμα. Επιστρέψτε στο κατάστημα: θα το δείξει μόλις γίνει γνωστό.',
    ],
    'Επιστροφή στο κατάστημα',
    'Μπορείτε να κλείσετε αυτό το παράθυρο και να επιστρέψετε στο κατάστημα.',
  ),
  es,
  'es-419': es,
  et: w(
    ['Makse õnnestus', 'Aitäh: teie makse läks läbi. Võite nüüd poodi naasta.'],
    [
      'Makse lükati tagasi',
      'Teie pank lükkas selle makse tagasi. Naaske poodi, et uuesti proovida või kasutada teist kaarti.',
    ],
    ['Makse jäi lõpetamata', 'Raha ei võetud. Naaske poodi, et uuesti alustada või poega ühendust võtta.'],
    ['Makse aegus', 'Selle makse aeg sai otsa ja raha ei võetud. Naaske poodi, et uuesti alustada.'],
    [
      'Veel tasumata',
      'Meieni pole veel ühtegi makset jõudnud. Kui just maksite, saab pood teada kohe, kui makseteenus selle kinnitab.',
    ],
    [
      'Kinnitame teie makset',
      'Teie pank pole meile veel tulemust teatanud. Naaske poodi: see näitab tulemust kohe, kui see on teada.',
    ],
    'Tagasi poodi',
    'Võite selle akna sulgeda ja poodi naasta.',
  ),
  fa: w(
    ['پرداخت موفق بود', 'سپاسگزاریم: پرداخت شما انجام شد. اکنون می‌توانید به فروشگاه برگردید.'],
    ['پرداخت رد شد', 'بانک شما این پرداخت را رد کرد. برای تلاش دوباره یا استفاده از کارت دیگر به فروشگاه برگردید.'],
    ['پرداخت کامل نشد', 'هیچ مبلغی برداشت نشد. برای شروع دوباره یا تماس با فروشگاه به آن برگردید.'],
    ['مهلت پرداخت تمام شد', 'مهلت این پرداخت تمام شد و هیچ مبلغی برداشت نشد. برای شروع دوباره به فروشگاه برگردید.'],
    [
      'هنوز پرداخت نشده',
      'هنوز هیچ پرداختی به ما نرسیده است. اگر همین حالا پرداخت کرده‌اید، به محض تأیید سرویس پرداخت به فروشگاه اطلاع داده می‌شود.',
    ],
    [
      'در حال تأیید پرداخت شما هستیم',
      'بانک شما هنوز نتیجه را به ما اعلام نکرده است. به فروشگاه برگردید: نتیجه به محض مشخص شدن نمایش داده می‌شود.',
    ],
    'بازگشت به فروشگاه',
    'می‌توانید این پنجره را ببندید و به فروشگاه برگردید.',
  ),
  fi: w(
    ['Maksu onnistui', 'Kiitos: maksusi meni läpi. Voit nyt palata kauppaan.'],
    [
      'Maksu hylättiin',
      'Pankkisi hylkäsi tämän maksun. Palaa kauppaan yrittääksesi uudelleen tai käyttääksesi toista korttia.',
    ],
    ['Maksu jäi kesken', 'Rahaa ei veloitettu. Palaa kauppaan aloittaaksesi alusta tai ottaaksesi yhteyttä kauppaan.'],
    ['Maksu vanheni', 'Tämän maksun aika loppui, eikä rahaa veloitettu. Palaa kauppaan aloittaaksesi alusta.'],
    [
      'Ei vielä maksettu',
      'Meille ei ole vielä tullut maksua. Jos maksoit juuri, kauppa saa tiedon heti, kun maksupalvelu vahvistaa sen.',
    ],
    [
      'Vahvistamme maksuasi',
      'Pankkisi ei ole vielä kertonut meille tulosta. Palaa kauppaan: se näyttää tuloksen heti, kun se tiedetään.',
    ],
    'Takaisin kauppaan',
    'Voit sulkea tämän ikkunan ja palata kauppaan.',
  ),
  fil: w(
    ['Matagumpay ang bayad', 'Salamat: natuloy ang iyong bayad. Puwede ka nang bumalik sa tindahan.'],
    [
      'Tinanggihan ang bayad',
      'Tinanggihan ng iyong bangko ang bayad na ito. Bumalik sa tindahan para sumubok ulit o gumamit ng ibang card.',
    ],
    [
      'Hindi natapos ang bayad',
      'Walang perang kinuha. Bumalik sa tindahan para magsimula ulit o para makipag-ugnayan dito.',
    ],
    [
      'Nag-expire ang bayad',
      'Naubos ang oras para sa bayad na ito at walang perang kinuha. Bumalik sa tindahan para magsimula ulit.',
    ],
    [
      'Hindi pa bayad',
      'Wala pang bayad na dumarating sa amin. Kung kababayad mo lang, sasabihan ang tindahan sa sandaling kumpirmahin ito ng serbisyo ng pagbabayad.',
    ],
    [
      'Kinukumpirma namin ang iyong bayad',
      'Hindi pa sinasabi sa amin ng iyong bangko ang resulta. Bumalik sa tindahan: ipapakita nito ang resulta sa sandaling malaman ito.',
    ],
    'Bumalik sa tindahan',
    'Puwede mong isara ang window na ito at bumalik sa tindahan.',
  ),
  fr,
  'fr-CA': fr,
  he: w(
    ['התשלום בוצע בהצלחה', 'תודה: התשלום שלך עבר. אפשר לחזור לחנות עכשיו.'],
    ['התשלום נדחה', 'הבנק שלך דחה את התשלום הזה. חזרו לחנות כדי לנסות שוב או להשתמש בכרטיס אחר.'],
    ['התשלום לא הושלם', 'לא נגבה כסף. חזרו לחנות כדי להתחיל מחדש או כדי לפנות אליה.'],
    ['פג הזמן לתשלום', 'הזמן לתשלום הזה נגמר ולא נגבה כסף. חזרו לחנות כדי להתחיל מחדש.'],
    ['עדיין לא שולם', 'עדיין לא הגיע אלינו תשלום. אם שילמת זה עתה, החנות תקבל הודעה ברגע ששירות התשלומים יאשר זאת.'],
    [
      'אנחנו מאשרים את התשלום שלך',
      'הבנק שלך עדיין לא מסר לנו את התוצאה. חזרו לחנות: היא תציג את התוצאה ברגע שתהיה ידועה.',
    ],
    'חזרה לחנות',
    'אפשר לסגור את החלון הזה ולחזור לחנות.',
  ),
  hi: w(
    ['भुगतान सफल रहा', 'धन्यवाद: आपका भुगतान हो गया। अब आप दुकान पर वापस जा सकते हैं।'],
    [
      'भुगतान अस्वीकार हुआ',
      'आपके बैंक ने यह भुगतान अस्वीकार कर दिया। फिर से कोशिश करने या दूसरा कार्ड इस्तेमाल करने के लिए दुकान पर वापस जाएँ।',
    ],
    ['भुगतान पूरा नहीं हुआ', 'कोई पैसा नहीं कटा। फिर से शुरू करने या दुकान से संपर्क करने के लिए दुकान पर वापस जाएँ।'],
    ['भुगतान का समय समाप्त', 'इस भुगतान का समय समाप्त हो गया और कोई पैसा नहीं कटा। फिर से शुरू करने के लिए दुकान पर वापस जाएँ।'],
    [
      'अभी भुगतान नहीं हुआ',
      'हमें अभी तक कोई भुगतान नहीं मिला है। अगर आपने अभी भुगतान किया है, तो भुगतान सेवा की पुष्टि होते ही दुकान को बता दिया जाएगा।',
    ],
    [
      'हम आपके भुगतान की पुष्टि कर रहे हैं',
      'आपके बैंक ने अभी तक हमें परिणाम नहीं बताया है। दुकान पर वापस जाएँ: परिणाम पता चलते ही वह उसे दिखाएगी।',
    ],
    'दुकान पर वापस जाएँ',
    'आप यह विंडो बंद करके दुकान पर लौट सकते हैं।',
  ),
  hr: w(
    ['Plaćanje je uspjelo', 'Hvala: vaše je plaćanje prošlo. Sada se možete vratiti u trgovinu.'],
    [
      'Plaćanje je odbijeno',
      'Vaša banka odbila je ovo plaćanje. Vratite se u trgovinu da biste pokušali ponovno ili upotrijebili drugu karticu.',
    ],
    [
      'Plaćanje nije dovršeno',
      'Novac nije naplaćen. Vratite se u trgovinu da biste počeli ispočetka ili je kontaktirali.',
    ],
    [
      'Plaćanje je isteklo',
      'Vrijeme za ovo plaćanje je isteklo i novac nije naplaćen. Vratite se u trgovinu da biste počeli ispočetka.',
    ],
    [
      'Još nije plaćeno',
      'Još nismo primili nikakvo plaćanje. Ako ste upravo platili, trgovina će biti obaviještena čim ga usluga plaćanja potvrdi.',
    ],
    [
      'Potvrđujemo vaše plaćanje',
      'Vaša banka nam još nije javila rezultat. Vratite se u trgovinu: prikazat će rezultat čim bude poznat.',
    ],
    'Natrag u trgovinu',
    'Možete zatvoriti ovaj prozor i vratiti se u trgovinu.',
  ),
  hu: w(
    ['Sikeres fizetés', 'Köszönjük: a fizetés sikerült. Most visszatérhet a webáruházba.'],
    [
      'A fizetést elutasították',
      'A bankja elutasította ezt a fizetést. Térjen vissza a webáruházba, és próbálja újra, vagy használjon másik kártyát.',
    ],
    [
      'A fizetés nem fejeződött be',
      'Nem vontunk le pénzt. Térjen vissza a webáruházba, és kezdje újra, vagy lépjen kapcsolatba vele.',
    ],
    [
      'A fizetés lejárt',
      'A fizetés ideje lejárt, és nem vontunk le pénzt. Térjen vissza a webáruházba, és kezdje újra.',
    ],
    [
      'Még nincs kifizetve',
      'Még nem érkezett hozzánk fizetés. Ha most fizetett, a webáruház értesül róla, amint a fizetési szolgáltató megerősíti.',
    ],
    [
      'Megerősítjük a fizetését',
      'A bankja még nem közölte velünk az eredményt. Térjen vissza a webáruházba: amint ismert, megjeleníti.',
    ],
    'Vissza a webáruházba',
    'Bezárhatja ezt az ablakot, és visszatérhet a webáruházba.',
  ),
  id: w(
    ['Pembayaran berhasil', 'Terima kasih: pembayaran Anda berhasil. Anda bisa kembali ke toko sekarang.'],
    [
      'Pembayaran ditolak',
      'Bank Anda menolak pembayaran ini. Kembali ke toko untuk mencoba lagi atau menggunakan kartu lain.',
    ],
    [
      'Pembayaran tidak selesai',
      'Tidak ada uang yang diambil. Kembali ke toko untuk memulai lagi atau menghubungi toko.',
    ],
    [
      'Pembayaran kedaluwarsa',
      'Waktu pembayaran ini habis dan tidak ada uang yang diambil. Kembali ke toko untuk memulai lagi.',
    ],
    [
      'Belum dibayar',
      'Belum ada pembayaran yang kami terima. Jika Anda baru saja membayar, toko akan diberi tahu begitu layanan pembayaran mengonfirmasinya.',
    ],
    [
      'Kami sedang mengonfirmasi pembayaran Anda',
      'Bank Anda belum memberi tahu kami hasilnya. Kembali ke toko: hasilnya akan ditampilkan begitu diketahui.',
    ],
    'Kembali ke toko',
    'Anda bisa menutup jendela ini dan kembali ke toko.',
  ),
  is: w(
    ['Greiðsla tókst', 'Takk: greiðslan þín gekk í gegn. Þú getur farið aftur í verslunina.'],
    [
      'Greiðslu hafnað',
      'Bankinn þinn hafnaði þessari greiðslu. Farðu aftur í verslunina til að reyna aftur eða nota annað kort.',
    ],
    [
      'Greiðslu ekki lokið',
      'Engin upphæð var tekin. Farðu aftur í verslunina til að byrja upp á nýtt eða hafa samband við hana.',
    ],
    [
      'Greiðslan rann út',
      'Tíminn fyrir þessa greiðslu rann út og engin upphæð var tekin. Farðu aftur í verslunina til að byrja upp á nýtt.',
    ],
    [
      'Ekki greitt enn',
      'Engin greiðsla hefur borist okkur enn. Ef þú varst að greiða fær verslunin að vita það um leið og greiðsluþjónustan staðfestir hana.',
    ],
    [
      'Við erum að staðfesta greiðsluna þína',
      'Bankinn þinn hefur ekki enn sagt okkur niðurstöðuna. Farðu aftur í verslunina: hún sýnir niðurstöðuna um leið og hún liggur fyrir.',
    ],
    'Aftur í verslunina',
    'Þú getur lokað þessum glugga og farið aftur í verslunina.',
  ),
  it: w(
    ['Pagamento riuscito', 'Grazie: il pagamento è andato a buon fine. Ora puoi tornare al negozio.'],
    [
      'Pagamento rifiutato',
      'La tua banca ha rifiutato questo pagamento. Torna al negozio per riprovare o usare un’altra carta.',
    ],
    ['Pagamento non completato', 'Non è stato addebitato nulla. Torna al negozio per ricominciare o per contattarlo.'],
    [
      'Pagamento scaduto',
      'Il tempo per questo pagamento è scaduto e non è stato addebitato nulla. Torna al negozio per ricominciare.',
    ],
    [
      'Non ancora pagato',
      'Non ci è ancora arrivato alcun pagamento. Se hai appena pagato, il negozio lo saprà appena il servizio di pagamento lo confermerà.',
    ],
    [
      'Stiamo confermando il tuo pagamento',
      'La tua banca non ci ha ancora comunicato l’esito. Torna al negozio: lo mostrerà appena sarà noto.',
    ],
    'Torna al negozio',
    'Puoi chiudere questa finestra e tornare al negozio.',
  ),
  ja: w(
    ['お支払いが完了しました', 'ありがとうございます。お支払いが完了しました。ショップにお戻りください。'],
    [
      'お支払いが拒否されました',
      'ご利用の銀行がこのお支払いを拒否しました。ショップに戻って再度お試しいただくか、別のカードをご利用ください。',
    ],
    [
      'お支払いは完了していません',
      '代金は引き落とされていません。ショップに戻ってやり直すか、ショップにお問い合わせください。',
    ],
    [
      'お支払いの期限が切れました',
      'このお支払いの期限が切れたため、代金は引き落とされていません。ショップに戻ってやり直してください。',
    ],
    [
      'まだお支払いされていません',
      'まだお支払いを受け取っていません。お支払いされたばかりの場合は、決済サービスが確認しだいショップに通知されます。',
    ],
    [
      'お支払いを確認しています',
      'ご利用の銀行からまだ結果が届いていません。ショップにお戻りください。結果がわかりしだい表示されます。',
    ],
    'ショップに戻る',
    'このウィンドウを閉じてショップにお戻りください。',
  ),
  ko: w(
    ['결제 완료', '감사합니다. 결제가 완료되었습니다. 이제 상점으로 돌아가셔도 됩니다.'],
    ['결제 거절', '은행에서 이 결제를 거절했습니다. 상점으로 돌아가 다시 시도하거나 다른 카드를 사용하세요.'],
    ['결제가 완료되지 않음', '청구된 금액은 없습니다. 상점으로 돌아가 다시 시작하거나 상점에 문의하세요.'],
    ['결제 시간 만료', '이 결제의 시간이 만료되어 청구된 금액은 없습니다. 상점으로 돌아가 다시 시작하세요.'],
    [
      '아직 결제되지 않음',
      '아직 결제가 도착하지 않았습니다. 방금 결제하셨다면 결제 서비스가 확인하는 즉시 상점에 알려 드립니다.',
    ],
    [
      '결제를 확인하고 있습니다',
      '은행에서 아직 결과를 알려 주지 않았습니다. 상점으로 돌아가세요. 결과가 나오는 대로 표시됩니다.',
    ],
    '상점으로 돌아가기',
    '이 창을 닫고 상점으로 돌아가셔도 됩니다.',
  ),
  lt: w(
    ['Mokėjimas atliktas', 'Ačiū: jūsų mokėjimas atliktas. Dabar galite grįžti į parduotuvę.'],
    [
      'Mokėjimas atmestas',
      'Jūsų bankas atmetė šį mokėjimą. Grįžkite į parduotuvę ir bandykite dar kartą arba naudokite kitą kortelę.',
    ],
    [
      'Mokėjimas neužbaigtas',
      'Pinigai nenuskaityti. Grįžkite į parduotuvę ir pradėkite iš naujo arba susisiekite su ja.',
    ],
    [
      'Mokėjimo laikas baigėsi',
      'Šio mokėjimo laikas baigėsi ir pinigai nenuskaityti. Grįžkite į parduotuvę ir pradėkite iš naujo.',
    ],
    [
      'Dar neapmokėta',
      'Mokėjimo dar negavome. Jei ką tik sumokėjote, parduotuvė sužinos, kai tik mokėjimo paslauga jį patvirtins.',
    ],
    [
      'Tikriname jūsų mokėjimą',
      'Jūsų bankas dar nepranešė mums rezultato. Grįžkite į parduotuvę: ji parodys rezultatą, kai tik jis bus žinomas.',
    ],
    'Grįžti į parduotuvę',
    'Galite uždaryti šį langą ir grįžti į parduotuvę.',
  ),
  lv: w(
    ['Maksājums veiksmīgs', 'Paldies: jūsu maksājums ir veikts. Tagad varat atgriezties veikalā.'],
    [
      'Maksājums noraidīts',
      'Jūsu banka noraidīja šo maksājumu. Atgriezieties veikalā, lai mēģinātu vēlreiz vai izmantotu citu karti.',
    ],
    ['Maksājums nav pabeigts', 'Nauda netika iekasēta. Atgriezieties veikalā, lai sāktu no jauna vai sazinātos ar to.'],
    [
      'Maksājuma laiks beidzies',
      'Šī maksājuma laiks beidzās, un nauda netika iekasēta. Atgriezieties veikalā, lai sāktu no jauna.',
    ],
    [
      'Vēl nav samaksāts',
      'Mēs vēl neesam saņēmuši maksājumu. Ja tikko samaksājāt, veikals to uzzinās, tiklīdz maksājumu pakalpojums to apstiprinās.',
    ],
    [
      'Mēs apstiprinām jūsu maksājumu',
      'Jūsu banka mums vēl nav paziņojusi rezultātu. Atgriezieties veikalā: tas parādīs rezultātu, tiklīdz tas būs zināms.',
    ],
    'Atpakaļ uz veikalu',
    'Varat aizvērt šo logu un atgriezties veikalā.',
  ),
  ms: w(
    ['Pembayaran berjaya', 'Terima kasih: pembayaran anda telah berjaya. Anda boleh kembali ke kedai sekarang.'],
    [
      'Pembayaran ditolak',
      'Bank anda menolak pembayaran ini. Kembali ke kedai untuk mencuba lagi atau menggunakan kad lain.',
    ],
    ['Pembayaran tidak selesai', 'Tiada wang diambil. Kembali ke kedai untuk bermula semula atau menghubungi kedai.'],
    [
      'Pembayaran tamat tempoh',
      'Masa untuk pembayaran ini telah tamat dan tiada wang diambil. Kembali ke kedai untuk bermula semula.',
    ],
    [
      'Belum dibayar',
      'Belum ada pembayaran yang sampai kepada kami. Jika anda baru membayar, kedai akan dimaklumkan sebaik sahaja perkhidmatan pembayaran mengesahkannya.',
    ],
    [
      'Kami sedang mengesahkan pembayaran anda',
      'Bank anda belum memberitahu kami keputusannya. Kembali ke kedai: keputusan akan dipaparkan sebaik sahaja diketahui.',
    ],
    'Kembali ke kedai',
    'Anda boleh menutup tetingkap ini dan kembali ke kedai.',
  ),
  mt: w(
    ['Il-ħlas sar b’suċċess', 'Grazzi: il-ħlas tiegħek għadda. Issa tista’ tmur lura fil-ħanut.'],
    [
      'Il-ħlas ġie rrifjutat',
      'Il-bank tiegħek irrifjuta dan il-ħlas. Mur lura fil-ħanut biex terġa’ tipprova jew tuża karta oħra.',
    ],
    ['Il-ħlas ma tlestiex', 'Ma nġibdu l-ebda flus. Mur lura fil-ħanut biex tibda mill-ġdid jew biex tikkuntattjah.'],
    [
      'Il-ħlas skada',
      'Il-ħin għal dan il-ħlas spiċċa u ma nġibdu l-ebda flus. Mur lura fil-ħanut biex tibda mill-ġdid.',
    ],
    [
      'Għadu ma tħallasx',
      'Għadu ma waslilna l-ebda ħlas. Jekk għadek kif ħallast, il-ħanut jiġi infurmat hekk kif is-servizz tal-ħlas jikkonfermah.',
    ],
    [
      'Qed nikkonfermaw il-ħlas tiegħek',
      'Il-bank tiegħek għadu ma qalilniex ir-riżultat. Mur lura fil-ħanut: juri r-riżultat hekk kif ikun magħruf.',
    ],
    'Lura fil-ħanut',
    'Tista’ tagħlaq din it-tieqa u tmur lura fil-ħanut.',
  ),
  nb: w(
    ['Betalingen er gjennomført', 'Takk: betalingen din gikk gjennom. Du kan gå tilbake til butikken nå.'],
    [
      'Betalingen ble avvist',
      'Banken din avviste denne betalingen. Gå tilbake til butikken for å prøve igjen eller bruke et annet kort.',
    ],
    [
      'Betalingen ble ikke fullført',
      'Ingen penger ble trukket. Gå tilbake til butikken for å starte på nytt eller kontakte den.',
    ],
    [
      'Betalingen er utløpt',
      'Tiden for denne betalingen gikk ut, og ingen penger ble trukket. Gå tilbake til butikken for å starte på nytt.',
    ],
    [
      'Ikke betalt ennå',
      'Vi har ikke mottatt noen betaling ennå. Hvis du nettopp har betalt, får butikken beskjed så snart betalingstjenesten bekrefter det.',
    ],
    [
      'Vi bekrefter betalingen din',
      'Banken din har ikke gitt oss resultatet ennå. Gå tilbake til butikken: den viser resultatet så snart det er kjent.',
    ],
    'Tilbake til butikken',
    'Du kan lukke dette vinduet og gå tilbake til butikken.',
  ),
  nl: w(
    ['Betaling geslaagd', 'Bedankt: je betaling is gelukt. Je kunt nu teruggaan naar de winkel.'],
    [
      'Betaling geweigerd',
      'Je bank heeft deze betaling geweigerd. Ga terug naar de winkel om het opnieuw te proberen of een andere kaart te gebruiken.',
    ],
    [
      'Betaling niet voltooid',
      'Er is niets afgeschreven. Ga terug naar de winkel om opnieuw te beginnen of contact op te nemen.',
    ],
    [
      'Betaling verlopen',
      'De tijd voor deze betaling is verstreken en er is niets afgeschreven. Ga terug naar de winkel om opnieuw te beginnen.',
    ],
    [
      'Nog niet betaald',
      'Er is nog geen betaling bij ons binnengekomen. Heb je net betaald, dan hoort de winkel het zodra de betaaldienst het bevestigt.',
    ],
    [
      'We bevestigen je betaling',
      'Je bank heeft ons de uitkomst nog niet laten weten. Ga terug naar de winkel: die toont de uitkomst zodra die bekend is.',
    ],
    'Terug naar de winkel',
    'Je kunt dit venster sluiten en teruggaan naar de winkel.',
  ),
  pl: w(
    ['Płatność zakończona', 'Dziękujemy: płatność została przyjęta. Możesz teraz wrócić do sklepu.'],
    [
      'Płatność odrzucona',
      'Twój bank odrzucił tę płatność. Wróć do sklepu, aby spróbować ponownie lub użyć innej karty.',
    ],
    [
      'Płatność nie została ukończona',
      'Nie pobrano żadnych pieniędzy. Wróć do sklepu, aby zacząć od nowa lub się z nim skontaktować.',
    ],
    [
      'Czas na płatność minął',
      'Czas na tę płatność minął i nie pobrano żadnych pieniędzy. Wróć do sklepu, aby zacząć od nowa.',
    ],
    [
      'Jeszcze nie zapłacono',
      'Nie otrzymaliśmy jeszcze żadnej płatności. Jeśli właśnie zapłaciłeś, sklep dowie się o tym, gdy tylko serwis płatności ją potwierdzi.',
    ],
    [
      'Potwierdzamy Twoją płatność',
      'Twój bank nie przekazał nam jeszcze wyniku. Wróć do sklepu: pokaże wynik, gdy tylko będzie znany.',
    ],
    'Wróć do sklepu',
    'Możesz zamknąć to okno i wrócić do sklepu.',
  ),
  pt,
  'pt-BR': w(
    ['Pagamento aprovado', 'Obrigado: seu pagamento foi aprovado. Você já pode voltar para a loja.'],
    [
      'Pagamento recusado',
      'Seu banco recusou este pagamento. Volte para a loja para tentar de novo ou usar outro cartão.',
    ],
    [
      'Pagamento não concluído',
      'Nada foi cobrado. Volte para a loja para começar de novo ou entrar em contato com ela.',
    ],
    [
      'Pagamento expirado',
      'O tempo deste pagamento acabou e nada foi cobrado. Volte para a loja para começar de novo.',
    ],
    [
      'Ainda não pago',
      'Nenhum pagamento chegou até nós ainda. Se você acabou de pagar, a loja será avisada assim que o serviço de pagamento confirmar.',
    ],
    [
      'Estamos confirmando seu pagamento',
      'Seu banco ainda não nos informou o resultado. Volte para a loja: ela mostrará o resultado assim que ele for conhecido.',
    ],
    'Voltar para a loja',
    'Você pode fechar esta janela e voltar para a loja.',
  ),
  ro: w(
    ['Plată reușită', 'Mulțumim: plata a fost efectuată. Acum vă puteți întoarce în magazin.'],
    [
      'Plată refuzată',
      'Banca dumneavoastră a refuzat această plată. Întoarceți-vă în magazin pentru a încerca din nou sau a folosi alt card.',
    ],
    [
      'Plată nefinalizată',
      'Nu s-au luat bani. Întoarceți-vă în magazin pentru a o lua de la capăt sau pentru a-l contacta.',
    ],
    [
      'Plata a expirat',
      'Timpul pentru această plată a expirat și nu s-au luat bani. Întoarceți-vă în magazin pentru a o lua de la capăt.',
    ],
    [
      'Încă neplătit',
      'Nu am primit încă nicio plată. Dacă tocmai ați plătit, magazinul va fi anunțat imediat ce serviciul de plată o confirmă.',
    ],
    [
      'Vă confirmăm plata',
      'Banca dumneavoastră nu ne-a comunicat încă rezultatul. Întoarceți-vă în magazin: îl va afișa imediat ce este cunoscut.',
    ],
    'Înapoi la magazin',
    'Puteți închide această fereastră și vă puteți întoarce în magazin.',
  ),
  ru: w(
    ['Оплата прошла успешно', 'Спасибо: ваш платёж прошёл. Теперь можно вернуться в магазин.'],
    [
      'Платёж отклонён',
      'Ваш банк отклонил этот платёж. Вернитесь в магазин, чтобы попробовать ещё раз или использовать другую карту.',
    ],
    ['Платёж не завершён', 'Деньги не списаны. Вернитесь в магазин, чтобы начать заново или связаться с ним.'],
    [
      'Время оплаты истекло',
      'Время на этот платёж истекло, деньги не списаны. Вернитесь в магазин, чтобы начать заново.',
    ],
    [
      'Ещё не оплачено',
      'Платёж к нам ещё не поступил. Если вы только что оплатили, магазин узнает об этом, как только платёжный сервис его подтвердит.',
    ],
    [
      'Мы подтверждаем ваш платёж',
      'Ваш банк ещё не сообщил нам результат. Вернитесь в магазин: он покажет результат, как только он станет известен.',
    ],
    'Вернуться в магазин',
    'Можно закрыть это окно и вернуться в магазин.',
  ),
  sk: w(
    ['Platba prebehla', 'Ďakujeme: vaša platba prebehla. Teraz sa môžete vrátiť do obchodu.'],
    [
      'Platba bola zamietnutá',
      'Vaša banka túto platbu zamietla. Vráťte sa do obchodu a skúste to znova alebo použite inú kartu.',
    ],
    [
      'Platba nebola dokončená',
      'Neboli stiahnuté žiadne peniaze. Vráťte sa do obchodu a začnite znova, alebo ho kontaktujte.',
    ],
    [
      'Platnosť platby vypršala',
      'Čas na túto platbu vypršal a neboli stiahnuté žiadne peniaze. Vráťte sa do obchodu a začnite znova.',
    ],
    [
      'Zatiaľ nezaplatené',
      'Zatiaľ k nám neprišla žiadna platba. Ak ste práve zaplatili, obchod sa to dozvie, hneď ako to platobná služba potvrdí.',
    ],
    [
      'Overujeme vašu platbu',
      'Vaša banka nám zatiaľ neoznámila výsledok. Vráťte sa do obchodu: zobrazí ho, hneď ako bude známy.',
    ],
    'Späť do obchodu',
    'Toto okno môžete zavrieť a vrátiť sa do obchodu.',
  ),
  sl: w(
    ['Plačilo je uspelo', 'Hvala: vaše plačilo je bilo izvedeno. Zdaj se lahko vrnete v trgovino.'],
    [
      'Plačilo je bilo zavrnjeno',
      'Vaša banka je zavrnila to plačilo. Vrnite se v trgovino, da poskusite znova ali uporabite drugo kartico.',
    ],
    [
      'Plačilo ni bilo dokončano',
      'Denar ni bil bremenjen. Vrnite se v trgovino, da začnete znova ali se obrnete nanjo.',
    ],
    [
      'Plačilo je poteklo',
      'Čas za to plačilo je potekel in denar ni bil bremenjen. Vrnite se v trgovino, da začnete znova.',
    ],
    [
      'Še ni plačano',
      'Do nas še ni prispelo nobeno plačilo. Če ste pravkar plačali, bo trgovina obveščena, takoj ko ga plačilna storitev potrdi.',
    ],
    [
      'Potrjujemo vaše plačilo',
      'Vaša banka nam še ni sporočila rezultata. Vrnite se v trgovino: prikazala ga bo, takoj ko bo znan.',
    ],
    'Nazaj v trgovino',
    'To okno lahko zaprete in se vrnete v trgovino.',
  ),
  sr: w(
    ['Плаћање је успело', 'Хвала: ваше плаћање је прошло. Сада можете да се вратите у продавницу.'],
    [
      'Плаћање је одбијено',
      'Ваша банка је одбила ово плаћање. Вратите се у продавницу да бисте покушали поново или користили другу картицу.',
    ],
    [
      'Плаћање није завршено',
      'Новац није наплаћен. Вратите се у продавницу да бисте почели испочетка или је контактирали.',
    ],
    [
      'Плаћање је истекло',
      'Време за ово плаћање је истекло и новац није наплаћен. Вратите се у продавницу да бисте почели испочетка.',
    ],
    [
      'Још није плаћено',
      'Још нисмо примили ниједно плаћање. Ако сте управо платили, продавница ће бити обавештена чим га услуга плаћања потврди.',
    ],
    [
      'Потврђујемо ваше плаћање',
      'Ваша банка нам још није јавила резултат. Вратите се у продавницу: приказаће резултат чим буде познат.',
    ],
    'Назад у продавницу',
    'Можете да затворите овај прозор и вратите се у продавницу.',
  ),
  sv: w(
    ['Betalningen lyckades', 'Tack: din betalning har gått igenom. Du kan gå tillbaka till butiken nu.'],
    [
      'Betalningen nekades',
      'Din bank nekade den här betalningen. Gå tillbaka till butiken för att försöka igen eller använda ett annat kort.',
    ],
    ['Betalningen slutfördes inte', 'Inga pengar drogs. Gå tillbaka till butiken för att börja om eller kontakta den.'],
    [
      'Betalningen har gått ut',
      'Tiden för den här betalningen tog slut och inga pengar drogs. Gå tillbaka till butiken för att börja om.',
    ],
    [
      'Inte betalt än',
      'Ingen betalning har kommit fram till oss än. Om du just har betalat får butiken veta det så snart betaltjänsten bekräftar den.',
    ],
    [
      'Vi bekräftar din betalning',
      'Din bank har inte meddelat oss resultatet än. Gå tillbaka till butiken: den visar resultatet så snart det är känt.',
    ],
    'Tillbaka till butiken',
    'Du kan stänga det här fönstret och gå tillbaka till butiken.',
  ),
  th: w(
    ['ชำระเงินสำเร็จ', 'ขอบคุณ: การชำระเงินของคุณเสร็จสมบูรณ์ คุณกลับไปที่ร้านค้าได้แล้ว'],
    ['การชำระเงินถูกปฏิเสธ', 'ธนาคารของคุณปฏิเสธการชำระเงินนี้ กลับไปที่ร้านค้าเพื่อลองอีกครั้งหรือใช้บัตรอื่น'],
    ['การชำระเงินไม่เสร็จสมบูรณ์', 'ไม่มีการตัดเงิน กลับไปที่ร้านค้าเพื่อเริ่มใหม่หรือติดต่อร้านค้า'],
    ['การชำระเงินหมดเวลา', 'การชำระเงินนี้หมดเวลาและไม่มีการตัดเงิน กลับไปที่ร้านค้าเพื่อเริ่มใหม่'],
    ['ยังไม่ได้ชำระเงิน', 'เรายังไม่ได้รับการชำระเงิน หากคุณเพิ่งชำระเงิน ร้านค้าจะได้รับแจ้งทันทีที่บริการชำระเงินยืนยัน'],
    ['เรากำลังยืนยันการชำระเงินของคุณ', 'ธนาคารของคุณยังไม่ได้แจ้งผลให้เราทราบ กลับไปที่ร้านค้า: ร้านค้าจะแสดงผลทันทีที่ทราบ'],
    'กลับไปที่ร้านค้า',
    'คุณปิดหน้าต่างนี้และกลับไปที่ร้านค้าได้',
  ),
  tr: w(
    ['Ödeme başarılı', 'Teşekkürler: ödemeniz gerçekleşti. Artık mağazaya dönebilirsiniz.'],
    [
      'Ödeme reddedildi',
      'Bankanız bu ödemeyi reddetti. Tekrar denemek veya başka bir kart kullanmak için mağazaya dönün.',
    ],
    ['Ödeme tamamlanmadı', 'Hiç para çekilmedi. Yeniden başlamak veya mağazayla iletişime geçmek için mağazaya dönün.'],
    ['Ödemenin süresi doldu', 'Bu ödemenin süresi doldu ve hiç para çekilmedi. Yeniden başlamak için mağazaya dönün.'],
    [
      'Henüz ödenmedi',
      'Bize henüz bir ödeme ulaşmadı. Az önce ödediyseniz, ödeme hizmeti onaylar onaylamaz mağazaya bildirilecek.',
    ],
    [
      'Ödemenizi doğruluyoruz',
      'Bankanız bize henüz sonucu bildirmedi. Mağazaya dönün: sonuç belli olur olmaz gösterilecek.',
    ],
    'Mağazaya dön',
    'Bu pencereyi kapatıp mağazaya dönebilirsiniz.',
  ),
  uk: w(
    ['Оплата успішна', 'Дякуємо: ваш платіж пройшов. Тепер можна повернутися до магазину.'],
    [
      'Платіж відхилено',
      'Ваш банк відхилив цей платіж. Поверніться до магазину, щоб спробувати ще раз або скористатися іншою карткою.',
    ],
    ['Платіж не завершено', 'Кошти не списано. Поверніться до магазину, щоб почати знову або зв’язатися з ним.'],
    ['Час оплати минув', 'Час на цей платіж минув, кошти не списано. Поверніться до магазину, щоб почати знову.'],
    [
      'Ще не оплачено',
      'Платіж до нас ще не надійшов. Якщо ви щойно оплатили, магазин дізнається про це, щойно платіжний сервіс його підтвердить.',
    ],
    [
      'Ми підтверджуємо ваш платіж',
      'Ваш банк ще не повідомив нам результат. Поверніться до магазину: він покаже результат, щойно той стане відомим.',
    ],
    'Повернутися до магазину',
    'Можна закрити це вікно й повернутися до магазину.',
  ),
  vi: w(
    ['Thanh toán thành công', 'Cảm ơn bạn: khoản thanh toán đã hoàn tất. Bạn có thể quay lại cửa hàng ngay bây giờ.'],
    [
      'Thanh toán bị từ chối',
      'Ngân hàng của bạn đã từ chối khoản thanh toán này. Hãy quay lại cửa hàng để thử lại hoặc dùng thẻ khác.',
    ],
    [
      'Thanh toán chưa hoàn tất',
      'Không có khoản tiền nào bị trừ. Hãy quay lại cửa hàng để bắt đầu lại hoặc liên hệ cửa hàng.',
    ],
    [
      'Thanh toán đã hết hạn',
      'Khoản thanh toán này đã hết thời gian và không có khoản tiền nào bị trừ. Hãy quay lại cửa hàng để bắt đầu lại.',
    ],
    [
      'Chưa thanh toán',
      'Chúng tôi chưa nhận được khoản thanh toán nào. Nếu bạn vừa thanh toán, cửa hàng sẽ được báo ngay khi dịch vụ thanh toán xác nhận.',
    ],
    [
      'Chúng tôi đang xác nhận khoản thanh toán của bạn',
      'Ngân hàng của bạn chưa cho chúng tôi biết kết quả. Hãy quay lại cửa hàng: kết quả sẽ hiển thị ngay khi có.',
    ],
    'Quay lại cửa hàng',
    'Bạn có thể đóng cửa sổ này và quay lại cửa hàng.',
  ),
  zh: w(
    ['付款成功', '谢谢：您的付款已完成。现在可以返回商店。'],
    ['付款被拒绝', '您的银行拒绝了这笔付款。请返回商店重试或使用其他卡。'],
    ['付款未完成', '没有扣款。请返回商店重新开始或联系商店。'],
    ['付款已超时', '此付款已超时，没有扣款。请返回商店重新开始。'],
    ['尚未付款', '我们尚未收到任何付款。如果您刚刚付款，支付服务确认后商店就会收到通知。'],
    ['正在确认您的付款', '您的银行尚未告知我们结果。请返回商店：结果一出来就会显示。'],
    '返回商店',
    '您可以关闭此窗口并返回商店。',
  ),
  'zh-HK': zhHant,
  'zh-TW': zhHant,
}
