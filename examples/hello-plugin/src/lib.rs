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
