CREATE TABLE item (
    id ${identity_column} PRIMARY KEY,
    name ${lock_name_type} NOT NULL
);
