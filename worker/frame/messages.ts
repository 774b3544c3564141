/**
 * @module
 * Every locale's messages, for the card frame the Worker renders in the shopper's language
 * (`./page.ts`). The widget loads one locale at a time; the Worker holds them all (a few kilobytes
 * each, in the Worker's bundle, never downloaded whole).
 */
import type { Locale } from '../../shared/locales.ts'
import { en, type Messages } from '../../shared/i18n/messages/en.ts'
import { messages as m_ar } from '../../shared/i18n/messages/ar.ts'
import { messages as m_bg } from '../../shared/i18n/messages/bg.ts'
import { messages as m_ca } from '../../shared/i18n/messages/ca.ts'
import { messages as m_cs } from '../../shared/i18n/messages/cs.ts'
import { messages as m_da } from '../../shared/i18n/messages/da.ts'
import { messages as m_de } from '../../shared/i18n/messages/de.ts'
import { messages as m_el } from '../../shared/i18n/messages/el.ts'
import { messages as m_en_GB } from '../../shared/i18n/messages/en-GB.ts'
import { messages as m_es } from '../../shared/i18n/messages/es.ts'
import { messages as m_es_419 } from '../../shared/i18n/messages/es-419.ts'
import { messages as m_et } from '../../shared/i18n/messages/et.ts'
import { messages as m_fa } from '../../shared/i18n/messages/fa.ts'
import { messages as m_fi } from '../../shared/i18n/messages/fi.ts'
import { messages as m_fil } from '../../shared/i18n/messages/fil.ts'
import { messages as m_fr } from '../../shared/i18n/messages/fr.ts'
import { messages as m_fr_CA } from '../../shared/i18n/messages/fr-CA.ts'
import { messages as m_he } from '../../shared/i18n/messages/he.ts'
import { messages as m_hi } from '../../shared/i18n/messages/hi.ts'
import { messages as m_hr } from '../../shared/i18n/messages/hr.ts'
import { messages as m_hu } from '../../shared/i18n/messages/hu.ts'
import { messages as m_id } from '../../shared/i18n/messages/id.ts'
import { messages as m_is } from '../../shared/i18n/messages/is.ts'
import { messages as m_it } from '../../shared/i18n/messages/it.ts'
import { messages as m_ja } from '../../shared/i18n/messages/ja.ts'
import { messages as m_ko } from '../../shared/i18n/messages/ko.ts'
import { messages as m_lt } from '../../shared/i18n/messages/lt.ts'
import { messages as m_lv } from '../../shared/i18n/messages/lv.ts'
import { messages as m_ms } from '../../shared/i18n/messages/ms.ts'
import { messages as m_mt } from '../../shared/i18n/messages/mt.ts'
import { messages as m_nb } from '../../shared/i18n/messages/nb.ts'
import { messages as m_nl } from '../../shared/i18n/messages/nl.ts'
import { messages as m_pl } from '../../shared/i18n/messages/pl.ts'
import { messages as m_pt } from '../../shared/i18n/messages/pt.ts'
import { messages as m_pt_BR } from '../../shared/i18n/messages/pt-BR.ts'
import { messages as m_ro } from '../../shared/i18n/messages/ro.ts'
import { messages as m_ru } from '../../shared/i18n/messages/ru.ts'
import { messages as m_sk } from '../../shared/i18n/messages/sk.ts'
import { messages as m_sl } from '../../shared/i18n/messages/sl.ts'
import { messages as m_sr } from '../../shared/i18n/messages/sr.ts'
import { messages as m_sv } from '../../shared/i18n/messages/sv.ts'
import { messages as m_th } from '../../shared/i18n/messages/th.ts'
import { messages as m_tr } from '../../shared/i18n/messages/tr.ts'
import { messages as m_uk } from '../../shared/i18n/messages/uk.ts'
import { messages as m_vi } from '../../shared/i18n/messages/vi.ts'
import { messages as m_zh } from '../../shared/i18n/messages/zh.ts'
import { messages as m_zh_HK } from '../../shared/i18n/messages/zh-HK.ts'
import { messages as m_zh_TW } from '../../shared/i18n/messages/zh-TW.ts'

export const MESSAGES: Readonly<Record<Locale, Messages>> = {
  ar: m_ar,
  bg: m_bg,
  ca: m_ca,
  cs: m_cs,
  da: m_da,
  de: m_de,
  el: m_el,
  en: en,
  'en-GB': m_en_GB,
  es: m_es,
  'es-419': m_es_419,
  et: m_et,
  fa: m_fa,
  fi: m_fi,
  fil: m_fil,
  fr: m_fr,
  'fr-CA': m_fr_CA,
  he: m_he,
  hi: m_hi,
  hr: m_hr,
  hu: m_hu,
  id: m_id,
  is: m_is,
  it: m_it,
  ja: m_ja,
  ko: m_ko,
  lt: m_lt,
  lv: m_lv,
  ms: m_ms,
  mt: m_mt,
  nb: m_nb,
  nl: m_nl,
  pl: m_pl,
  pt: m_pt,
  'pt-BR': m_pt_BR,
  ro: m_ro,
  ru: m_ru,
  sk: m_sk,
  sl: m_sl,
  sr: m_sr,
  sv: m_sv,
  th: m_th,
  tr: m_tr,
  uk: m_uk,
  vi: m_vi,
  zh: m_zh,
  'zh-HK': m_zh_HK,
  'zh-TW': m_zh_TW,
}
