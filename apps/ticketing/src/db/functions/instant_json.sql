-- An instant as Date.toISOString() writes it (milliseconds, UTC, 'Z'), for the JSON the functions build.
CREATE OR REPLACE FUNCTION ticketing.instant_json(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
