//! A minimal Lore importer plugin: format `hello-names` reads a text file with one name
//! per line and imports each name as an object of a custom model.

use lore_plugin_sdk::{About, Error, Format, Importer, Level, Model, Object, Output, Request};

struct HelloNames;

impl Importer for HelloNames {
    fn about() -> About {
        About::new("hello", env!("CARGO_PKG_VERSION"))
            .description("Imports a list of names, one per line")
            .format(
                Format::new("hello-names", "A text file with one name per line").parameters(
                    serde_json::json!({
                        "type": "object",
                        "properties": {
                            "modelName": {"type": "string", "description": "The model's name"}
                        }
                    }),
                ),
            )
    }

    fn import(request: &Request, out: &mut Output<'_>) -> Result<(), Error> {
        let path = request.require_file()?;
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))?;
        let model = request.text("modelName").unwrap_or("Names");
        out.model(Model::new(model, "Custom Model"))?;
        out.object(Object::new("names", "Custom Folder", "Names"))?;
        let mut count = 0;
        for (line, name) in text.lines().enumerate() {
            let name = name.trim();
            if name.is_empty() {
                continue;
            }
            // The native id is what a re-import matches objects by: keep it stable.
            out.object(
                Object::new(format!("name-{}", line + 1), "Custom Object", name).parent("names"),
            )?;
            count += 1;
        }
        out.log(Level::Info, format!("read {count} names"))?;
        Ok(())
    }
}

lore_plugin_sdk::export_importer!(HelloNames);

#[cfg(test)]
mod tests {
    use lore_plugin_sdk::testing::{request, run};

    use super::HelloNames;

    #[test]
    fn every_name_becomes_an_object_lore_accepts() {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("names.txt");
        let outcome = run::<HelloNames>(&request(
            "hello-names",
            Some(&file),
            serde_json::json!({"modelName": "People"}),
        ));
        // The checks Lore makes before it writes anything.
        outcome.check().expect("a model Lore accepts");
        assert_eq!(outcome.model().map(|m| m.name.as_str()), Some("People"));
        let names: Vec<&str> = outcome.objects().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["Names", "Ada Lovelace", "Alan Turing", "Grace Hopper"]);
        // Native ids follow the lines, so a re-import matches the same names.
        assert_eq!(outcome.object("name-4").name, "Grace Hopper");
    }

    #[test]
    fn a_missing_file_is_a_clear_error() {
        let outcome = run::<HelloNames>(&request(
            "hello-names",
            Some(std::path::Path::new("/nowhere/names.txt")),
            serde_json::json!({}),
        ));
        assert!(outcome.error().starts_with("cannot read /nowhere/names.txt"));
    }
}
