-- Townhall's two database roles (k8s/README.md "Database roles"): run once per database by a
-- PostgreSQL administrator, and again whenever you like (every statement is idempotent):
--
--   psql "postgres://admin@postgres.platform.svc.cluster.local:5432/townhall" \
--     -v database=townhall \
--     -v migrator_role=townhall_migrator -v migrator_password='...' \
--     -v app_role=townhall_app -v app_password='...' \
--     -v ON_ERROR_STOP=1 -f k8s/postgres-roles.sql
--
-- migrator_role (Secret key database-migrate-url, the migration Jobs): creates the service
--   schemas and everything in them, so it owns them. DDL happens as this role only.
-- app_role (Secret key database-url, every app): reads and writes rows, uses sequences, and
--   nothing else: it cannot create, alter or drop a schema, table or index.
--
-- The app role's rights come from default privileges of the migrator role, so a table that a
-- later migration creates is usable by the apps without running this file again.

-- The roles (passwords are set again on every run: this is also how to rotate them).
SELECT format('CREATE ROLE %I LOGIN', :'migrator_role')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'migrator_role') \gexec
SELECT format('CREATE ROLE %I LOGIN', :'app_role')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_role') \gexec
ALTER ROLE :"migrator_role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT PASSWORD :'migrator_password';
ALTER ROLE :"app_role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT PASSWORD :'app_password';

-- The database: the migrator may create schemas in it, the apps only connect. PostgreSQL 15+
-- already keeps everyone but the owner from creating objects in the schema "public".
REVOKE CREATE, TEMPORARY ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT, CREATE ON DATABASE :"database" TO :"migrator_role";
GRANT CONNECT ON DATABASE :"database" TO :"app_role";

-- What the migrator creates from now on: usable by the apps, rows only.
ALTER DEFAULT PRIVILEGES FOR ROLE :"migrator_role" GRANT USAGE ON SCHEMAS TO :"app_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"migrator_role"
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"migrator_role" GRANT USAGE, SELECT ON SEQUENCES TO :"app_role";

-- What the migrator already owns (a database migrated before this file ran, after
-- `REASSIGN OWNED BY <old user> TO <migrator_role>`): the same rights, granted now.
SELECT format('GRANT USAGE ON SCHEMA %I TO %I', nspname, :'app_role')
  || format('; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO %I', nspname, :'app_role')
  || format('; GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO %I', nspname, :'app_role')
FROM pg_namespace
WHERE nspowner = (SELECT oid FROM pg_roles WHERE rolname = :'migrator_role') \gexec
