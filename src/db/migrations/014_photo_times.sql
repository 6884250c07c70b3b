-- Photo times (issue 13): a camera's EXIF time without an offset is a wall-clock reading, read in
-- the time zone of where the photo was taken, no longer as UTC.
--
-- workspaces.time_zone: the zone of last resort (IANA name, checked by the API through Intl).
alter table workspaces add column time_zone text not null default 'UTC';

-- captured_at_source gains exif_offset (EXIF time with its offset: an exact instant) and
-- exif_local (EXIF wall clock read in captured_at_time_zone). Rows read before this migration
-- keep `exif`: an offset was applied when the file had one, else the wall clock was taken as UTC,
-- and which of the two is no longer known.
alter table photos drop constraint photos_captured_at_source_check;
alter table photos add constraint photos_captured_at_source_check
  check (captured_at_source in ('client', 'exif_offset', 'exif_local', 'exif', 'upload'));

-- The zone the photo's local time is read in and printed in (where it was taken, as far as
-- known); null until processed, and for photos processed before this migration (a report then
-- uses the project's zone).
alter table photos add column captured_at_time_zone text;

-- Those `exif` rows are read again by the reread_legacy_photo_times job (photos.jobs.ts), a batch
-- every 10 minutes; this index keeps its lookup cheap, and empty once they are all done.
create index photos_legacy_exif_times on photos (id) where captured_at_source = 'exif' and captured_at_time_zone is null;
