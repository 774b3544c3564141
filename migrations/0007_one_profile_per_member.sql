-- One merchant profile per gateway member, kept by the database itself: the check before a
-- profile is written (worker/merchants/profiles.ts, memberTaken) let two profiles created or
-- changed at the same moment take one member, and then each could ask about and delete the
-- other's payments and saved cards at the gateway. A deployment that already holds two profiles
-- on one member fails this migration: give one of them its own member first
-- (PATCH /v1/platform/merchants/{id}), then apply it again.
CREATE UNIQUE INDEX merchants_by_member ON merchants (json_extract(profile, '$.gateway.memberId'));
