-- Who took an entry off the exclusion lists (`DELETE /v1/exclusion-list/{id}`; `removed_at`
-- says when). The entry and its matches stay on the record; a later entry of the same source
-- and reference puts it back and clears both.
ALTER TABLE exclusion_list ADD COLUMN removed_by text;
ALTER TABLE exclusion_list ADD CONSTRAINT exclusion_list_removal_complete
    CHECK ((removed_at IS NULL) = (removed_by IS NULL));
