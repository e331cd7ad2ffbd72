CREATE DOMAIN year AS integer CONSTRAINT year_check CHECK (VALUE >= 1901 AND VALUE <= 2155);
CREATE TYPE mpaa_rating AS ENUM ('G', 'PG', 'PG-13', 'R', 'NC-17');
CREATE TYPE full_name AS (first text, last text);
CREATE FUNCTION _group_concat(text, text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
SELECT CASE WHEN $2 IS NULL THEN $1 WHEN $1 IS NULL THEN $2 ELSE $1 || ', ' || $2 END $$;
CREATE AGGREGATE group_concat(text) (SFUNC = _group_concat, STYPE = text);
CREATE FUNCTION last_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.last_update = CURRENT_TIMESTAMP; RETURN NEW; END $$;
CREATE TABLE language (language_id serial PRIMARY KEY, name character(20) NOT NULL);
CREATE TABLE actor (actor_id serial PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL, last_update timestamp with time zone DEFAULT now() NOT NULL);
CREATE INDEX idx_actor_last_name ON actor (last_name);
CREATE TABLE film (film_id serial PRIMARY KEY, title text NOT NULL, release_year year, rating mpaa_rating DEFAULT 'G', language_id integer NOT NULL REFERENCES language (language_id));
COMMENT ON TABLE film IS 'Films for rent';
CREATE TRIGGER last_updated BEFORE UPDATE ON actor FOR EACH ROW EXECUTE FUNCTION last_updated();
CREATE TABLE payment (payment_id integer NOT NULL, amount numeric(5,2) NOT NULL, payment_date timestamp with time zone NOT NULL) PARTITION BY RANGE (payment_date);
CREATE TABLE payment_p2022_01 PARTITION OF payment FOR VALUES FROM ('2022-01-01') TO ('2022-02-01');
CREATE VIEW actor_names AS SELECT first_name || ' ' || last_name AS name FROM actor;
CREATE MATERIALIZED VIEW film_count AS SELECT language_id, count(*) AS films FROM film GROUP BY language_id;
